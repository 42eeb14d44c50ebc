// What PgBouncer's auth_query needs inside PostgreSQL (docs/pooler.md): the
// login role quorum_pooler (no other attribute, its password from
// <cluster>-pgbouncer-auth, sent as a SCRAM verifier) and, in the database
// `postgres` (auth_dbname), the schema quorum_pooler with one SECURITY
// DEFINER function, quorum_pooler.lookup(name), owned by the superuser, that
// only quorum_pooler may execute. It returns the name and stored password
// (SCRAM verifier) of one role that may log in, is no superuser, replication
// or RLS-bypassing role, is none of Quorum's own roles and has not expired:
// PgBouncer then checks the client's password against it and logs in to
// PostgreSQL with the client's SCRAM keys. The function is created with
// CREATE OR REPLACE on every apply, so its body follows the operator's.
//
// Thread-safety: pure functions; EnsurePgBouncerRole uses its own connections.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_SQL_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_SQL_H_

#include <string>

#include "absl/status/status.h"
#include "src/controllers/postgrescluster/users.h"

namespace quorum::postgrescluster {

// The statements that make the schema and the function, and grant only
// quorum_pooler the right to call it: one string, which PQexec (the simple
// query protocol; PgConnection::Exec) runs as one implicit transaction.
std::string PgBouncerLookupSql();

// Makes quorum_pooler (with `password`) and the lookup function exist
// through `target` (the primary, as the superuser: users.h). Errors: as
// EnsureUsers and PgConnection::Exec (Unavailable: cannot connect; Internal: a
// statement failed, with PostgreSQL's message and never a password).
absl::Status EnsurePgBouncerRole(const PostgresTarget& target, const std::string& password);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_SQL_H_
