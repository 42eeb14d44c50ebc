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

namespace quorum::postgrescluster {

struct UserSpec {
  std::string name;
  std::vector<std::string> databases;
  std::vector<std::string> options;  // e.g. CREATEDB (admission allows a short list)
  std::string password;              // from the user's Secret
};

// spec.users, with passwords from `password_of(secret name)` ("" if unknown).
std::vector<UserSpec> UsersOf(const PostgresCluster& cluster,
                              const std::function<std::string(const std::string&)>& password_of);

// The statements that make `users` exist, given the roles and databases that
// exist. `verifier(user)` is the SCRAM verifier of the user's password.
std::vector<std::string> PlanUserSql(const std::vector<UserSpec>& users,
                                     const std::set<std::string>& existing_roles,
                                     const std::set<std::string>& existing_databases,
                                     const std::function<std::string(const UserSpec&)>& verifier);

struct PostgresTarget {
  // With `ca_pem`: the name the server certificate must carry (checked with
  // sslmode=verify-full), while libpq connects to `hostaddr` (the pod IP: no
  // cluster DNS needed). Without: the address connected to, TLS if offered
  // (sslmode=prefer; tests of plain servers only).
  std::string host;
  std::string hostaddr;  // "" = resolve `host`
  int port = 5432;
  std::string user, password;  // the superuser
  std::string ca_pem;          // the cluster's CA; "" = no verification
};

// The libpq connection parameters for `target` (keys and values in order,
// without the password). `ca_file` is where libpq reads the CA from when
// target.ca_pem is set. Pure (exposed for tests).
std::vector<std::pair<std::string, std::string>> ConnParams(const PostgresTarget& target,
                                                            const std::string& ca_file);

// Connects to the primary and applies PlanUserSql. The CA reaches libpq
// (which reads it from a path only) through an anonymous in-memory file
// (memfd, /proc/self/fd/N): nothing is written to a file system, which is
// read-only in the operator's pod. Errors: Unavailable when it cannot
// connect (or the certificate does not verify), Internal when a statement
// fails (with PostgreSQL's message, never a password).
absl::Status EnsureUsers(const PostgresTarget& target, const std::vector<UserSpec>& users);

// Runs `statements` in order on one connection to `target` (verified as for
// EnsureUsers) and returns the first row of each, its columns as text (NULL
// as ""). Errors: Unavailable when it cannot connect, Internal when a
// statement fails or returns no row (with PostgreSQL's message).
absl::StatusOr<std::vector<std::vector<std::string>>> QueryFirstRows(
    const PostgresTarget& target, const std::vector<std::string>& statements);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_USERS_H_
