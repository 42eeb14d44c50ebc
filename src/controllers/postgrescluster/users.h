// spec.users made real inside PostgreSQL: each user a LOGIN role with the
// password of its Secret (sent as a SCRAM verifier computed by libpq, so the
// clear password never appears in SQL or server logs) and the role options
// the spec grants, and each of its databases created with it as the owner.
// Idempotent: existing roles are altered to match, existing databases kept.
//
// PlanUserSql is pure (names are valid PostgreSQL identifiers, checked at
// admission, and are double-quoted anyway); EnsureUsers connects with libpq.
//
// Thread-safety: pure function; EnsureUsers uses its own connection.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_USERS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_USERS_H_

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/pg_connection.h"

namespace quorum::postgrescluster {

struct UserSpec {
  std::string name;
  std::vector<std::string> databases;
  std::vector<std::string> options;    // e.g. CREATEDB (admission allows a short list)
  std::string password;                // from the user's Secret
  std::vector<std::string> member_of;  // roles granted to it, e.g. pg_monitor
};

// spec.users, then Quorum's quorum_monitor (a member of pg_monitor) when the
// exporter is on (monitoring.h), with passwords from `password_of(secret
// name)` ("" if unknown).
std::vector<UserSpec> UsersOf(const PostgresCluster& cluster,
                              const std::function<std::string(const std::string&)>& password_of);

// The statements that make `users` exist, given the roles and databases that
// exist: CREATE or ALTER ROLE, CREATE DATABASE for those missing, GRANT of
// member_of (granting again is harmless). `verifier(user)` is the SCRAM verifier of the user's
// password.
std::vector<std::string> PlanUserSql(const std::vector<UserSpec>& users,
                                     const std::set<std::string>& existing_roles,
                                     const std::set<std::string>& existing_databases,
                                     const std::function<std::string(const UserSpec&)>& verifier);

// Connects to the primary (pg_connection.h) and applies PlanUserSql. Errors: Unavailable when it
// cannot connect (or the certificate does not verify), Internal when a statement fails (with
// PostgreSQL's message, never a password).
absl::Status EnsureUsers(const PostgresTarget& target, const std::vector<UserSpec>& users);

// Runs `statements` in order on one connection to `target` (verified as for
// EnsureUsers) and returns the first row of each, its columns as text (NULL
// as ""). Errors: Unavailable when it cannot connect, Internal when a
// statement fails or returns no row (with PostgreSQL's message).
absl::StatusOr<std::vector<std::vector<std::string>>> QueryFirstRows(
    const PostgresTarget& target, const std::vector<std::string>& statements);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_USERS_H_
