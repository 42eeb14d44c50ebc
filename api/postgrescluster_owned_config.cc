#include "api/postgrescluster_owned_config.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr char kBase[] = "spec.patroni.dynamicConfiguration";

struct Rule {
  std::string_view key;
  std::string_view reason;
};

constexpr std::array kTopLevel = {
    Rule{"ttl", "set spec.patroni.leaderLeaseDurationSeconds instead"},
    Rule{"loop_wait", "set spec.patroni.syncPeriodSeconds instead"},
    Rule{"retry_timeout", "set spec.patroni.retryTimeoutSeconds instead"},
    Rule{"standby_cluster",
         "standby clusters are not supported yet: a standby_cluster section would make the "
         "cluster follow another server"},
};

// Sections of Patroni's local configuration file, which Quorum writes; in the
// dynamic configuration they would either be ignored or shadow Quorum's.
constexpr std::array<std::string_view, 10> kLocalSections = {
    "restapi", "ctl",   "etcd3",     "kubernetes", "bootstrap",
    "tags",    "scope", "namespace", "name",       "watchdog"};

constexpr char kTls[] =
    "Quorum owns PostgreSQL's TLS (spec.tls); of the ssl settings only "
    "ssl_min_protocol_version (TLSv1.2 or TLSv1.3) may be set";
constexpr char kBackups[] =
    "Quorum owns WAL archiving and recovery (spec.backups.pgbackrest); archive_timeout may be set";
constexpr char kLayout[] = "Quorum owns where PostgreSQL listens and keeps its files";

constexpr std::array kParameters = {
    Rule{"archive_mode", kBackups},
    Rule{"archive_command", kBackups},
    Rule{"archive_library", kBackups},
    Rule{"restore_command", kBackups},
    Rule{"archive_cleanup_command", kBackups},
    Rule{"recovery_end_command", kBackups},
    Rule{"primary_conninfo", "Patroni sets where replicas stream from"},
    Rule{"primary_slot_name", "Patroni sets where replicas stream from"},
    Rule{"promote_trigger_file", "Patroni decides promotions"},
    Rule{"listen_addresses", kLayout},
    Rule{"port", kLayout},
    Rule{"data_directory", kLayout},
    Rule{"config_file", kLayout},
    Rule{"hba_file", "Quorum owns pg_hba (use spec.authentication.rules)"},
    Rule{"ident_file", kLayout},
    Rule{"external_pid_file", kLayout},
};

// A parameter's value as PostgreSQL reads it: strings, numbers and booleans.
std::string ValueText(const Json& v) {
  if (v.is_string()) return absl::AsciiStrToLower(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  return v.dump();
}

bool IsOn(const std::string& v) { return v == "on" || v == "true" || v == "yes" || v == "1"; }

// Why parameter `key` = `value` is owned; "" when it may be set.
std::string ParameterReason(const std::string& key, const Json& value) {
  for (const Rule& r : kParameters) {
    if (key == r.key) return std::string(r.reason);
  }
  const std::string text = ValueText(value);
  if (key == "ssl_min_protocol_version") {
    return text == "tlsv1.2" || text == "tlsv1.3" ? "" : kTls;
  }
  if (key == "ssl" || key.starts_with("ssl_")) return kTls;
  if (key.starts_with("unix_socket_")) return kLayout;
  if (key.starts_with("recovery_target")) return kBackups;
  if (key == "wal_level" && text != "replica" && text != "logical") {
    return "replication needs wal_level replica (or logical)";
  }
  if (key == "hot_standby" && !IsOn(text)) return "replicas serve reads: hot_standby stays on";
  if (key == "password_encryption" && text != "scram-sha-256") {
    return "passwords are stored as scram-sha-256 only";
  }
  return "";
}

void Postgresql(const Json& pg, std::vector<OwnedConfigKey>& out) {
  for (const auto& [key, value] : pg.items()) {
    if (key == "pg_ident") continue;
    if (key == "parameters") {
      if (!value.is_object()) continue;  // Patroni refuses it; not Quorum's to judge
      for (const auto& [name, v] : value.items()) {
        if (std::string why = ParameterReason(name, v); !why.empty()) {
          out.push_back({{"postgresql", "parameters", name}, std::move(why)});
        }
      }
      continue;
    }
    out.push_back({{"postgresql", key},
                   key == "pg_hba"
                       ? "Quorum owns pg_hba; add rules with spec.authentication.rules"
                       : "Quorum owns it; only postgresql.parameters and postgresql.pg_ident "
                         "may be set here"});
  }
}

// The value at `path` in `root`, or null.
const Json* At(const Json& root, const std::vector<std::string>& path) {
  const Json* at = &root;
  for (const std::string& key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

}  // namespace

std::string OwnedConfigKey::Field() const {
  return absl::StrCat(kBase, ".", absl::StrJoin(path, "."));
}

std::vector<OwnedConfigKey> FindOwnedConfigKeys(const Json& dynamic) {
  std::vector<OwnedConfigKey> out;
  if (!dynamic.is_object()) return out;
  for (const auto& [key, value] : dynamic.items()) {
    if (value.is_null()) continue;
    if (key == "postgresql") {
      if (value.is_object()) Postgresql(value, out);
      continue;
    }
    for (const Rule& r : kTopLevel) {
      if (key == r.key) out.push_back({{key}, std::string(r.reason)});
    }
    if (std::find(kLocalSections.begin(), kLocalSections.end(), key) != kLocalSections.end()) {
      out.push_back({{key},
                     "part of Patroni's local configuration, which Quorum writes; it does not "
                     "belong in the dynamic configuration"});
    }
  }
  return out;
}

std::vector<OwnedConfigKey> StripOwnedDynamicConfiguration(Json& dynamic) {
  std::vector<OwnedConfigKey> owned = FindOwnedConfigKeys(dynamic);
  for (const OwnedConfigKey& k : owned) {
    Json* parent = &dynamic;
    for (size_t i = 0; i + 1 < k.path.size(); ++i) parent = &(*parent)[k.path[i]];
    parent->erase(k.path.back());
  }
  return owned;
}

std::vector<FieldError> ValidateOwnedDynamicConfiguration(const Json& obj, const Json* old) {
  std::vector<FieldError> errors;
  const Json* dynamic = At(obj, {"spec", "patroni", "dynamicConfiguration"});
  if (dynamic == nullptr) return errors;
  const Json* old_dynamic =
      old != nullptr ? At(*old, {"spec", "patroni", "dynamicConfiguration"}) : nullptr;
  for (const OwnedConfigKey& k : FindOwnedConfigKeys(*dynamic)) {
    const Json* was = old_dynamic != nullptr ? At(*old_dynamic, k.path) : nullptr;
    if (was != nullptr && *was == *At(*dynamic, k.path)) continue;  // stored before the rule
    errors.push_back({k.Field(), absl::StrCat("may not be set: ", k.reason)});
  }
  return errors;
}

}  // namespace quorum::api
