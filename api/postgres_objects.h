// What PostgresRole and PostgresDatabase share: the rules on the SQL names
// they carry (role, database, schema and extension names), the roles Quorum
// keeps for itself, the extensions the images ship, the reclaim policy, and
// the status both report. docs/databases.md is the user-facing contract.
//
// Thread-safety: constants, value types and pure functions.
#ifndef QUORUM_API_POSTGRES_OBJECTS_H_
#define QUORUM_API_POSTGRES_OBJECTS_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/etcdcluster_types.h"

namespace quorum::api {

// spec.reclaimPolicy: what deleting the resource does to the SQL object.
inline constexpr std::string_view kReclaimRetain = "retain";
inline constexpr std::string_view kReclaimDelete = "delete";

// The finalizer a resource with reclaimPolicy delete carries until the SQL
// object is dropped (or its cluster is gone).
inline constexpr std::string_view kSqlObjectFinalizer = "postgres.quorum.dev/drop-sql-object";

// The longest name PostgreSQL keeps (NAMEDATALEN - 1 bytes).
inline constexpr size_t kMaxSqlNameLength = 63;

// A role, database or schema name these resources accept: 1 to 63 bytes of
// ASCII letters, digits, '_', '-' and '.', starting with a letter or '_'.
// Broader than spec.users' rule (metadata.name is the default and may hold
// '-' and '.'); every statement double-quotes it anyway.
bool IsSqlObjectName(std::string_view name);

// Why `role` may not be managed by a PostgresRole (or owned/granted by a
// PostgresDatabase), or "" when it may: Quorum's own roles (the superuser
// postgres, which Patroni also uses for pg_rewind, the replication user and
// the pooler's two, quorum_pooler and quorum_pooler_admin, and the metrics
// exporter's quorum_monitor),
// PostgreSQL's pseudo-roles (public, current_user, ...) and names starting
// with pg_, which PostgreSQL reserves.
std::string ReservedRoleReason(std::string_view role);

// The extensions a PostgresDatabase may create: the contrib modules that
// Debian's postgresql-15 and postgresql-17 packages (our images) both ship,
// sorted.
std::span<const std::string_view> AllowedExtensions();
bool IsAllowedExtension(std::string_view name);

// Grant privileges on a database (spec.grants[].privileges without a schema)
// and on a schema (with one).
std::span<const std::string_view> DatabasePrivileges();  // CONNECT CREATE TEMPORARY ALL
std::span<const std::string_view> SchemaPrivileges();    // USAGE CREATE ALL

// A grant a PostgresDatabase made (status.grants): on the database (schema
// "") or a schema, its privileges with ALL spelled out, sorted.
struct AppliedGrant {
  std::string role;
  std::string schema;
  std::vector<std::string> privileges;
  bool operator==(const AppliedGrant&) const = default;
};

struct PostgresObjectStatus {
  int64_t observed_generation = 0;
  bool applied = false;               // the spec of observedGeneration is in PostgreSQL
  std::string message;                // the last error, "" when applied
  std::string secret_name;            // PostgresRole: the Secret holding its password
  std::string certificate_secret;     // PostgresRole: its client certificate's Secret
  std::string certificate_not_after;  // PostgresRole: when that certificate expires (RFC 3339)
  std::vector<AppliedGrant>
      grants;  // PostgresDatabase: what its grants hold (revoked when removed)
  std::vector<Condition> conditions;  // Ready
  bool operator==(const PostgresObjectStatus&) const = default;
};

nlohmann::json ToJson(const PostgresObjectStatus& status);
const Condition* FindCondition(const PostgresObjectStatus& status, const std::string& type);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRES_OBJECTS_H_
