// A libpq connection to one PostgreSQL server as the operator's superuser:
// what spec.users (users.h) and the PostgresRole/PostgresDatabase
// controllers share. TLS with verify-full against the cluster's CA, which
// reaches libpq (it reads the CA from a path only) through an anonymous
// in-memory file (memfd, /proc/self/fd/N): nothing is written to a file
// system, which is read-only in the operator's pod. Passwords never appear
// in error messages.
//
// Thread-safety: a PgConnection is used by one thread at a time.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PG_CONNECTION_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PG_CONNECTION_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

typedef struct pg_conn PGconn;

namespace quorum::postgrescluster {

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
// without the password), to database `dbname`. `ca_file` is where libpq
// reads the CA from when target.ca_pem is set. Pure (exposed for tests).
std::vector<std::pair<std::string, std::string>> ConnParams(const PostgresTarget& target,
                                                            const std::string& ca_file,
                                                            const std::string& dbname = "postgres");

// One row of a query: NULL is nullopt.
using PgRow = std::vector<std::optional<std::string>>;

class PgConnection {
 public:
  // Errors: Unavailable when it cannot connect or the certificate does not
  // verify; Internal when the CA cannot be handed to libpq.
  static absl::StatusOr<std::unique_ptr<PgConnection>> Open(const PostgresTarget& target,
                                                            const std::string& dbname = "postgres");
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement. Errors: Internal with PostgreSQL's message (the
  // statement is not included: it may carry a password verifier);
  // Unavailable when the connection is lost.
  absl::Status Exec(const std::string& sql);
  // Exec that gives up at `deadline` (DeadlineExceeded; the statement may
  // still run: close the connection), for a statement that waits on others,
  // such as PgBouncer's PAUSE. Errors otherwise: as Exec.
  absl::Status ExecBefore(const std::string& sql, absl::Time deadline);
  // A query with text parameters $1..$n. Errors: as Exec.
  absl::StatusOr<std::vector<PgRow>> Query(const std::string& sql,
                                           const std::vector<std::string>& params = {});
  // `text` as a SQL string literal (PQescapeLiteral: quotes and backslashes
  // handled for this server's settings); NULL when libpq cannot (text that
  // is not valid in the connection's encoding).
  std::string Literal(std::string_view text);
  // The SCRAM-SHA-256 verifier of `password` for `user`, computed by libpq
  // so the clear password never reaches the server. Errors: Internal.
  absl::StatusOr<std::string> ScramVerifier(const std::string& password, const std::string& user);

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  absl::Status Failure() const;
  PGconn* conn_;
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PG_CONNECTION_H_
