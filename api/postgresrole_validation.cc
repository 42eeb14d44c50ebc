// ValidatePostgresRole and ParsePostgresRole (postgresrole_types.h).
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "api/postgres_objects_internal.h"
#include "api/postgresrole_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::ChildOf;
using internal::Indexed;

// Predefined roles that reach the server's own files or programs: membership
// is as good as superuser, which PostgresRole does not hand out.
bool IsServerAccessRole(const std::string& role) {
  return role == "pg_execute_server_program" || role == "pg_read_server_files" ||
         role == "pg_write_server_files";
}

void CheckInRoles(const Json* in_roles, const std::string& self, std::vector<FieldError>& out) {
  if (in_roles == nullptr) return;
  if (!in_roles->is_array()) {
    out.push_back({"spec.inRoles", "must be a list of role names"});
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < in_roles->size(); ++i) {
    const std::string field = Indexed("spec.inRoles", i);
    const Json& r = (*in_roles)[i];
    const std::string role = r.is_string() ? r.get<std::string>() : "";
    if (role.starts_with("pg_") && IsSqlObjectName(role)) {  // PostgreSQL's predefined roles
      if (IsServerAccessRole(role)) {
        out.push_back({field, absl::StrCat("\"", role,
                                           "\" reaches the server's files or programs; "
                                           "grant it by hand as the superuser if you must")});
      }
    } else {
      internal::CheckRoleReference(&r, field, out);
    }
    if (!role.empty() && role == self)
      out.push_back({field, "a role cannot be a member of itself"});
    if (!seen.insert(role).second) out.push_back({field, absl::StrCat("duplicate \"", role, "\"")});
  }
}

}  // namespace

std::vector<FieldError> ValidatePostgresRole(const Json& obj, const Json* old) {
  std::vector<FieldError> out;
  const std::string name = internal::CheckCommonSpec(
      obj, old,
      {"cluster", "name", "login", "connectionLimit", "inRoles", "passwordSecret", "reclaimPolicy",
       "validUntil", "clientCertificate", "disablePassword"},
      "role", out);
  const Json* spec = ChildOf(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) return out;
  if (!name.empty()) {
    if (std::string why = ReservedRoleReason(name); !why.empty()) {
      out.push_back({ChildOf(spec, "name") != nullptr ? "spec.name" : "metadata.name", why});
    }
  }
  for (const char* flag : {"login", "clientCertificate", "disablePassword"}) {
    if (const Json* v = ChildOf(spec, flag); v != nullptr && !v->is_boolean()) {
      out.push_back({absl::StrCat("spec.", flag), "want true or false"});
    }
  }
  auto on = [&](const char* flag) {
    const Json* v = ChildOf(spec, flag);
    return v != nullptr && v->is_boolean() && v->get<bool>();
  };
  const Json* login = ChildOf(spec, "login");
  if (on("clientCertificate") && login != nullptr && login->is_boolean() && !login->get<bool>()) {
    out.push_back({"spec.clientCertificate", "a certificate is for logging in: needs login true"});
  }
  if (on("disablePassword") && ChildOf(spec, "passwordSecret") != nullptr) {
    out.push_back({"spec.disablePassword",
                   "the role has no password with disablePassword: remove spec.passwordSecret"});
  }
  CheckInRoles(ChildOf(spec, "inRoles"), name, out);
  if (const Json* ref = ChildOf(spec, "passwordSecret"); ref != nullptr) {
    const Json* secret = ChildOf(ref, "name");
    if (secret == nullptr || !secret->is_string() || secret->get<std::string>().empty()) {
      out.push_back({"spec.passwordSecret.name", "name a Secret in this namespace"});
    }
    if (const Json* key = ChildOf(ref, "key");
        key != nullptr && (!key->is_string() || key->get<std::string>().empty())) {
      out.push_back({"spec.passwordSecret.key", "want the key of the password in the Secret"});
    }
  }
  if (const Json* until = ChildOf(spec, "validUntil"); until != nullptr) {
    if (!until->is_string() || until->get<std::string>().empty() ||
        until->get<std::string>().size() > 64) {
      out.push_back(
          {"spec.validUntil", "want a timestamp such as 2027-01-31T00:00:00Z, or infinity"});
    }
  }
  return out;
}

absl::StatusOr<PostgresRole> ParsePostgresRole(const Json& obj) {
  if (!obj.is_object()) return absl::InvalidArgumentError("a PostgresRole must be a JSON object");
  if (std::vector<FieldError> errors = ValidatePostgresRole(obj, nullptr); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  internal::Decoder d;
  PostgresRole out;
  internal::DecodeObjectMeta(d, obj, out.metadata);
  const Json* spec = d.Member(&obj, "", "spec");
  d.String(spec, "spec", "cluster", out.spec.cluster);
  out.spec.name = out.metadata.name;
  d.String(spec, "spec", "name", out.spec.name);
  d.Bool(spec, "spec", "login", out.spec.login);
  d.Bool(spec, "spec", "clientCertificate", out.spec.client_certificate);
  d.Bool(spec, "spec", "disablePassword", out.spec.disable_password);
  d.Int32(spec, "spec", "connectionLimit", out.spec.connection_limit);
  d.StringList(spec, "spec", "inRoles", out.spec.in_roles);
  if (const Json* ref = d.Member(spec, "spec", "passwordSecret")) {
    SecretKeyRef& r = out.spec.password_secret.emplace();
    d.String(ref, "spec.passwordSecret", "name", r.name);
    d.String(ref, "spec.passwordSecret", "key", r.key);
  }
  d.String(spec, "spec", "reclaimPolicy", out.spec.reclaim_policy);
  d.String(spec, "spec", "validUntil", out.spec.valid_until);
  internal::DecodeObjectStatus(d, obj, out.status);
  if (absl::Status s = d.ToStatus(); !s.ok()) return s;
  return out;
}

}  // namespace quorum::api
