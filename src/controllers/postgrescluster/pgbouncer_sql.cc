#include "src/controllers/postgrescluster/pgbouncer_sql.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/strings.h"
#include "src/controllers/postgrescluster/pg_connection.h"

namespace quorum::postgrescluster {

std::string PgBouncerLookupSql() {
  const std::string role = std::string(api::kPoolerUserName);
  const std::string superuser = std::string(api::kSuperuserName);
  // Schema and role share the name; the function's search_path is pinned so
  // no object of the caller's can stand in for a catalog one.
  return absl::StrCat("CREATE SCHEMA IF NOT EXISTS ", role, " AUTHORIZATION ", superuser, ";\n",
                      "REVOKE ALL ON SCHEMA ", role, " FROM PUBLIC;\n", "GRANT USAGE ON SCHEMA ",
                      role, " TO ", role, ";\n", "CREATE OR REPLACE FUNCTION ", role,
                      ".lookup(p_user name, OUT usename name, OUT passwd text)\n"
                      "RETURNS SETOF record LANGUAGE sql STABLE SECURITY DEFINER\n"
                      "SET search_path = pg_catalog, pg_temp AS $quorum$\n"
                      "  SELECT a.rolname, a.rolpassword FROM pg_catalog.pg_authid a\n"
                      "  WHERE a.rolname = p_user AND a.rolcanlogin AND NOT a.rolsuper\n"
                      "    AND NOT a.rolreplication AND NOT a.rolbypassrls\n"
                      "    AND a.rolname NOT IN ('",
                      superuser, "', '", Absl(api::kReplicationUserName), "', '", role,
                      "')\n"
                      "    AND (a.rolvaliduntil IS NULL OR a.rolvaliduntil > pg_catalog.now())\n"
                      "$quorum$;\n",
                      "ALTER FUNCTION ", role, ".lookup(name) OWNER TO ", superuser, ";\n",
                      "REVOKE ALL ON FUNCTION ", role, ".lookup(name) FROM PUBLIC;\n",
                      "GRANT EXECUTE ON FUNCTION ", role, ".lookup(name) TO ", role, ";\n");
}

absl::Status EnsurePgBouncerRole(const PostgresTarget& target, const std::string& password) {
  if (password.empty()) {
    return absl::FailedPreconditionError("the pooler's password is not known yet");
  }
  // The role first (the function grants to it), as spec.users are made:
  // LOGIN and nothing else, the password as a SCRAM verifier.
  absl::Status s =
      EnsureUsers(target, {UserSpec{.name = std::string(api::kPoolerUserName),
                                    .options = {"NOSUPERUSER", "NOCREATEDB", "NOCREATEROLE",
                                                "NOINHERIT", "NOREPLICATION", "NOBYPASSRLS"},
                                    .password = password}});
  if (!s.ok()) return s;
  absl::StatusOr<std::unique_ptr<PgConnection>> conn = PgConnection::Open(target);
  if (!conn.ok()) return conn.status();
  return (*conn)->Exec(PgBouncerLookupSql());  // the simple protocol: several statements
}

}  // namespace quorum::postgrescluster
