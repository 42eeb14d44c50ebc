#include "api/postgres_objects.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"

namespace quorum::api {
namespace {

// contrib in postgresql-15 and postgresql-17 (adminpack and old_snapshot
// left PostgreSQL 17), sorted for binary search.
constexpr std::string_view kExtensions[] = {"amcheck",
                                            "autoinc",
                                            "bloom",
                                            "btree_gin",
                                            "btree_gist",
                                            "citext",
                                            "cube",
                                            "dblink",
                                            "dict_int",
                                            "dict_xsyn",
                                            "earthdistance",
                                            "file_fdw",
                                            "fuzzystrmatch",
                                            "hstore",
                                            "insert_username",
                                            "intagg",
                                            "intarray",
                                            "isn",
                                            "lo",
                                            "ltree",
                                            "moddatetime",
                                            "pageinspect",
                                            "pg_buffercache",
                                            "pg_freespacemap",
                                            "pg_prewarm",
                                            "pg_stat_statements",
                                            "pg_surgery",
                                            "pg_trgm",
                                            "pg_visibility",
                                            "pg_walinspect",
                                            "pgcrypto",
                                            "pgrowlocks",
                                            "pgstattuple",
                                            "plpgsql",
                                            "postgres_fdw",
                                            "refint",
                                            "seg",
                                            "sslinfo",
                                            "tablefunc",
                                            "tcn",
                                            "tsm_system_rows",
                                            "tsm_system_time",
                                            "unaccent",
                                            "uuid-ossp",
                                            "xml2"};

constexpr std::array<std::string_view, 4> kDatabasePrivileges = {"CONNECT", "CREATE", "TEMPORARY",
                                                                 "ALL"};
constexpr std::array<std::string_view, 3> kSchemaPrivileges = {"USAGE", "CREATE", "ALL"};

// Role names PostgreSQL itself refuses in CREATE ROLE.
constexpr std::array<std::string_view, 6> kPseudoRoles = {
    "public", "none", "current_user", "session_user", "current_role", "all"};

}  // namespace

bool IsSqlObjectName(std::string_view s) {
  if (s.empty() || s.size() > kMaxSqlNameLength) return false;
  if (!absl::ascii_isalpha(static_cast<unsigned char>(s.front())) && s.front() != '_') {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

std::string ReservedRoleReason(std::string_view role_view) {
  const std::string role(role_view);
  const std::string lower = absl::AsciiStrToLower(role);
  const std::string superuser(kSuperuserName), replication(kReplicationUserName);
  if (role == superuser || role == replication) {
    return absl::StrCat("\"", role, "\" is one of Quorum's own roles (", superuser,
                        ": the superuser Patroni and pg_rewind use; ", replication,
                        ": streaming replication); choose another name");
  }
  const std::string pooler(kPoolerUserName), pooler_admin(kPoolerAdminName);
  if (role == pooler || role == pooler_admin) {
    return absl::StrCat("\"", role, "\" is one of Quorum's own roles (", pooler,
                        ": the pooler's password lookup; ", pooler_admin,
                        ": the pooler's admin console); choose another name");
  }
  if (role == kMonitorUserName) {
    return absl::StrCat("\"", role,
                        "\" is one of Quorum's own roles (the metrics exporter's); choose "
                        "another name");
  }
  if (lower.starts_with("pg_")) {
    return absl::StrCat("\"", role, "\": names starting with pg_ are reserved by PostgreSQL");
  }
  if (std::find(kPseudoRoles.begin(), kPseudoRoles.end(), lower) != kPseudoRoles.end()) {
    return absl::StrCat("\"", role, "\" is a PostgreSQL keyword, not a role name");
  }
  return "";
}

std::span<const std::string_view> AllowedExtensions() { return kExtensions; }

bool IsAllowedExtension(std::string_view name) {
  std::span<const std::string_view> all = AllowedExtensions();
  return std::binary_search(all.begin(), all.end(), name);
}

std::span<const std::string_view> DatabasePrivileges() { return kDatabasePrivileges; }
std::span<const std::string_view> SchemaPrivileges() { return kSchemaPrivileges; }

const Condition* FindCondition(const PostgresObjectStatus& status, const std::string& type) {
  for (const Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

nlohmann::json ToJson(const PostgresObjectStatus& s) {
  nlohmann::json conditions = nlohmann::json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  nlohmann::json out = {{"observedGeneration", s.observed_generation},
                        {"applied", s.applied},
                        {"conditions", conditions}};
  if (!s.message.empty()) out["message"] = s.message;
  if (!s.secret_name.empty()) out["secretName"] = s.secret_name;
  if (!s.certificate_secret.empty()) out["certificateSecret"] = s.certificate_secret;
  if (!s.certificate_not_after.empty()) out["certificateNotAfter"] = s.certificate_not_after;
  if (!s.grants.empty()) {
    nlohmann::json grants = nlohmann::json::array();
    for (const AppliedGrant& g : s.grants) {
      nlohmann::json one = {{"role", g.role}, {"privileges", g.privileges}};
      if (!g.schema.empty()) one["schema"] = g.schema;
      grants.push_back(std::move(one));
    }
    out["grants"] = std::move(grants);
  }
  return out;
}

}  // namespace quorum::api
