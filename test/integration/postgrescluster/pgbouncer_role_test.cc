// The pooler's auth_query role inside a real PostgreSQL (Debian's, on a
// loopback port): EnsurePgBouncerRole makes quorum_pooler and the lookup
// function, twice without error; quorum_pooler looks up an ordinary role's
// SCRAM verifier and nothing of the superuser's; an ordinary role may not
// call the function.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>

#include "src/controllers/postgrescluster/pgbouncer_sql.h"
#include "test/integration/local_postgres.h"

namespace quorum::postgrescluster {
namespace {

class PgBouncerRoleTest : public testing::LocalPostgres {
 protected:
  PostgresTarget Target() {
    return {.host = "127.0.0.1", .port = port(), .user = "postgres", .password = "su-secret"};
  }
  // Runs `sql` as `user` in database postgres: the rows' first column joined
  // by ",", or "ERROR: ..." when it fails.
  std::string As(const std::string& user, const std::string& password, const std::string& sql) {
    PGconn* c = PQconnectdb(ConnInfo(user, password, "postgres").c_str());
    std::string out;
    if (PQstatus(c) != CONNECTION_OK) {
      out = std::string("ERROR: ") + PQerrorMessage(c);
    } else {
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        out = std::string("ERROR: ") + PQresultErrorMessage(r);
      } else {
        for (int i = 0; i < PQntuples(r); ++i) {
          if (i > 0) out += ",";
          out += PQgetvalue(r, i, 0);
        }
      }
      PQclear(r);
    }
    PQfinish(c);
    return out;
  }
};

TEST_F(PgBouncerRoleTest, OnlyThePoolerLooksUpOrdinaryRoles) {
  ASSERT_EQ(EnsureUsers(Target(), {{.name = "app", .databases = {"app"}, .password = "app-pw"}}),
            absl::OkStatus());
  ASSERT_EQ(EnsurePgBouncerRole(Target(), "pool-pw"), absl::OkStatus());
  ASSERT_EQ(EnsurePgBouncerRole(Target(), "pool-pw"), absl::OkStatus()) << "not idempotent";

  const std::string app =
      As("quorum_pooler", "pool-pw", "SELECT passwd FROM quorum_pooler.lookup('app')");
  EXPECT_EQ(app.rfind("SCRAM-SHA-256$", 0), 0u) << app;
  EXPECT_EQ(As("quorum_pooler", "pool-pw", "SELECT passwd FROM quorum_pooler.lookup('postgres')"),
            "")
      << "the superuser's verifier was handed out";
  EXPECT_EQ(As("app", "app-pw", "SELECT passwd FROM quorum_pooler.lookup('app')").rfind("ERROR", 0),
            0u)
      << "an ordinary role may call the lookup";
}

}  // namespace
}  // namespace quorum::postgrescluster
