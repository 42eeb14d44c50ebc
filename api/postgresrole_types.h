// PostgresRole (postgres.quorum.dev/v1alpha1): one PostgreSQL role of a
// PostgresCluster in the same namespace, owned by whoever owns the resource
// (a team's GitOps repository), the way CloudNativePG's DatabaseRole is. The
// controller creates or alters the role to match, keeps its password (from
// the user's Secret, or generated into <cluster>-role-<name>), and drops it
// on delete only with reclaimPolicy delete. docs/databases.md is the
// user-facing contract.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_POSTGRESROLE_TYPES_H_
#define QUORUM_API_POSTGRESROLE_TYPES_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"
#include "api/postgres_objects.h"
#include "api/postgresrole.h"

namespace quorum::api {

struct SecretKeyRef {
  std::string name;
  std::string key = "password";
  bool operator==(const SecretKeyRef&) const = default;
};

struct PostgresRoleSpec {
  std::string cluster;  // a PostgresCluster in this namespace; immutable
  std::string name;     // the role's name; metadata.name when unset; immutable
  bool login = true;
  int32_t connection_limit = -1;  // -1: no limit
  std::vector<std::string> in_roles;
  std::optional<SecretKeyRef> password_secret;  // unset: generated (login roles)
  std::string reclaim_policy{kReclaimRetain};
  std::string valid_until;  // "" = forever; else a timestamp PostgreSQL reads
  // A client certificate (CN = name) from the cluster's CA in Secret
  // <cluster>-role-<name>-cert, renewed; for pg_hba's cert method.
  bool client_certificate = false;
  bool disable_password = false;  // PASSWORD NULL, no Secret generated
  bool operator==(const PostgresRoleSpec&) const = default;
};

struct PostgresRole {
  ObjectMeta metadata;
  PostgresRoleSpec spec;
  PostgresObjectStatus status;
};

// The admission rules, every broken one named by its field: cluster set, the
// role name valid and not reserved (ReservedRoleReason), inRoles valid (the
// predefined pg_ roles are allowed there, except those that reach the
// server's files or programs), connectionLimit >= -1, reclaimPolicy retain
// or delete, clientCertificate only with login, disablePassword not with
// passwordSecret, no unknown fields; with `old` (an update) cluster and the
// effective name unchanged.
std::vector<FieldError> ValidatePostgresRole(const nlohmann::json& obj, const nlohmann::json* old);

// Validates and decodes (defaults applied: name, login, connectionLimit,
// reclaimPolicy, passwordSecret.key). InvalidArgument naming every bad field.
absl::StatusOr<PostgresRole> ParsePostgresRole(const nlohmann::json& obj);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESROLE_TYPES_H_
