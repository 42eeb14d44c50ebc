// Applying sql_plan.h's statements to a live server: each function connects
// as the superuser (postgrescluster/pg_connection.h), reads the catalog
// state it plans from, and runs the plan in order, stopping at the first
// failure.
//
// Errors (all functions): Unavailable when the server cannot be reached;
// FailedPrecondition when a statement fails, as "<what>: <PostgreSQL's
// message>" (e.g. "grant on database app to bob: role \"bob\" does not
// exist"), never with a password; Internal when a catalog read fails.
// Thread-safety: each call uses its own connections.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_APPLY_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_APPLY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/postgresdatabase_types.h"
#include "api/postgresrole_types.h"
#include "src/controllers/postgrescluster/pg_connection.h"

namespace quorum::postgresobjects {

using postgrescluster::PostgresTarget;

// Creates or alters the role; `password` "" leaves its password as it is.
absl::Status ApplyRole(const PostgresTarget& target, const api::PostgresRoleSpec& spec,
                       const std::string& password);

// The databases `role` owns (none when the role does not exist).
absl::StatusOr<std::vector<std::string>> DatabasesOwnedBy(const PostgresTarget& target,
                                                          const std::string& role);

// In every database that accepts connections, what `role` owns goes to the
// superuser and its privileges are dropped; then the role. Gone already: OK.
absl::Status DropRole(const PostgresTarget& target, const std::string& role);

// Creates or alters the database, then its schemas, extensions and grants;
// revokes what `previous` (status.grants) granted and the spec no longer lists.
absl::Status ApplyDatabase(const PostgresTarget& target, const api::PostgresDatabaseSpec& spec,
                           const std::vector<api::AppliedGrant>& previous = {});

// Terminates its sessions and drops it. Gone already: OK.
absl::Status DropDatabase(const PostgresTarget& target, const std::string& database);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_APPLY_H_
