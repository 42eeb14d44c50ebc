// PostgresRole and PostgresDatabase SQL (apply.h) against a real PostgreSQL
// (Debian's, local_postgres.h): roles and databases are created, altered and
// dropped; grants are checked by connecting as the role; a second apply
// changes nothing; a failing statement is named in the error; the clear
// password never reaches the server.
#include "src/controllers/postgresobjects/apply.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "test/integration/local_postgres.h"

namespace quorum::postgresobjects {
namespace {

class ApplyTest : public testing::LocalPostgres {
 protected:
  PostgresTarget Target() {
    return {.host = "127.0.0.1", .port = port(), .user = "postgres", .password = "su-secret"};
  }
  // The first column of the first row of `sql` run as the superuser in `db`.
  std::string Scalar(const std::string& sql, const std::string& db = "postgres") {
    PGconn* c = PQconnectdb(ConnInfo("postgres", "su-secret", db).c_str());
    PGresult* r = PQexec(c, sql.c_str());
    std::string out =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "<none>";
    PQclear(r);
    PQfinish(c);
    return out;
  }
  // Whether `sql` succeeds as `user` in `db`.
  bool RunsAs(const std::string& user, const std::string& password, const std::string& db,
              const std::string& sql) {
    PGconn* c = PQconnectdb(ConnInfo(user, password, db).c_str());
    bool ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
      PGresult* r = PQexec(c, sql.c_str());
      ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
      PQclear(r);
    }
    PQfinish(c);
    return ok;
  }
};

api::PostgresRoleSpec Role(const std::string& name) { return {.cluster = "hippo", .name = name}; }

TEST_F(ApplyTest, CreatesAltersAndDropsARole) {
  api::PostgresRoleSpec role = Role("App-User");
  role.connection_limit = 4;
  ASSERT_EQ(ApplyRole(Target(), role, "pw-one"), absl::OkStatus());
  EXPECT_TRUE(CanLogin("App-User", "pw-one", "postgres"));
  EXPECT_EQ(Scalar("SELECT rolconnlimit FROM pg_roles WHERE rolname = 'App-User'"), "4");
  // Again: nothing fails; a new password replaces the old one.
  ASSERT_EQ(ApplyRole(Target(), role, "pw-two"), absl::OkStatus());
  EXPECT_FALSE(CanLogin("App-User", "pw-one", "postgres"));
  EXPECT_TRUE(CanLogin("App-User", "pw-two", "postgres"));
  role.login = false;
  ASSERT_EQ(ApplyRole(Target(), role, ""), absl::OkStatus());
  EXPECT_FALSE(CanLogin("App-User", "pw-two", "postgres"));
  EXPECT_EQ(ServerLog().find("pw-one"), std::string::npos) << "a clear password reached the server";

  ASSERT_EQ(DropRole(Target(), "App-User"), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT count(*) FROM pg_roles WHERE rolname = 'App-User'"), "0");
  EXPECT_EQ(DropRole(Target(), "App-User"), absl::OkStatus()) << "gone already is done";
}

TEST_F(ApplyTest, MembershipsFollowInRoles) {
  ASSERT_EQ(ApplyRole(Target(), {.cluster = "c", .name = "readers", .login = false}, ""),
            absl::OkStatus());
  api::PostgresRoleSpec role = Role("app");
  role.in_roles = {"readers", "missing"};
  absl::Status s = ApplyRole(Target(), role, "pw");
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_EQ(s.message(), "grant membership in missing to app: role \"missing\" does not exist");
  role.in_roles = {"readers"};
  ASSERT_EQ(ApplyRole(Target(), role, "pw"), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT pg_has_role('app', 'readers', 'MEMBER')"), "t");
  role.in_roles = {};
  ASSERT_EQ(ApplyRole(Target(), role, ""), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT pg_has_role('app', 'readers', 'MEMBER')"), "f");
}

TEST_F(ApplyTest, DatabaseWithSchemasExtensionsAndGrants) {
  ASSERT_EQ(ApplyRole(Target(), Role("owner"), "owner-pw"), absl::OkStatus());
  ASSERT_EQ(ApplyRole(Target(), Role("reader"), "reader-pw"), absl::OkStatus());
  api::PostgresDatabaseSpec db{
      .cluster = "hippo",
      .name = "app",
      .owner = "owner",
      .extensions = {{.name = "pg_trgm"}, {.name = "hstore", .schema = "ext"}},
      .schemas = {{.name = "ext"}, {.name = "reports"}},
      .connection_limit = 7,
      .grants = {{.role = "reader", .privileges = {"CONNECT"}},
                 {.role = "reader", .privileges = {"USAGE"}, .schema = "reports"}}};
  ASSERT_EQ(ApplyDatabase(Target(), db), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT pg_get_userbyid(datdba) || ' ' || datconnlimit FROM pg_database "
                   "WHERE datname = 'app'"),
            "owner 7");
  EXPECT_EQ(Scalar("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = "
                   "e.extnamespace WHERE extname = 'hstore'",
                   "app"),
            "ext");
  EXPECT_EQ(
      Scalar("SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'reports'", "app"),
      "owner");
  // The grants, as the role sees them.
  ASSERT_TRUE(RunsAs("owner", "owner-pw", "app", "CREATE TABLE reports.t (x int)"));
  EXPECT_TRUE(RunsAs("reader", "reader-pw", "app", "SELECT 1"));
  EXPECT_FALSE(RunsAs("reader", "reader-pw", "app", "CREATE SCHEMA mine"));
  EXPECT_FALSE(RunsAs("reader", "reader-pw", "app", "CREATE TABLE reports.u (x int)"));
  EXPECT_EQ(Scalar("SELECT has_schema_privilege('reader', 'reports', 'USAGE')", "app"), "t");

  // Edited: the limit and a CREATE grant; applying twice is the same.
  db.connection_limit = -1;
  db.grants.push_back({.role = "reader", .privileges = {"CREATE"}, .schema = "reports"});
  ASSERT_EQ(ApplyDatabase(Target(), db), absl::OkStatus());
  ASSERT_EQ(ApplyDatabase(Target(), db), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT datconnlimit FROM pg_database WHERE datname = 'app'"), "-1");
  EXPECT_TRUE(RunsAs("reader", "reader-pw", "app", "CREATE TABLE reports.u (x int)"));

  // The owner cannot be dropped while it owns the database's objects
  // elsewhere: DropRole hands them to the superuser first.
  ASSERT_EQ(DatabasesOwnedBy(Target(), "owner").value(), std::vector<std::string>{"app"});
  ASSERT_EQ(DropRole(Target(), "owner"), absl::OkStatus());
  EXPECT_EQ(Scalar("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'app'"),
            "postgres");
  EXPECT_EQ(Scalar("SELECT tableowner FROM pg_tables WHERE tablename = 't'", "app"), "postgres");

  // Dropped with a session open in it.
  PGconn* open = PQconnectdb(ConnInfo("reader", "reader-pw", "app").c_str());
  ASSERT_EQ(PQstatus(open), CONNECTION_OK);
  ASSERT_EQ(DropDatabase(Target(), "app"), absl::OkStatus());
  PQfinish(open);
  EXPECT_EQ(Scalar("SELECT count(*) FROM pg_database WHERE datname = 'app'"), "0");
  EXPECT_EQ(DropDatabase(Target(), "app"), absl::OkStatus()) << "gone already is done";
}

TEST_F(ApplyTest, AGrantToAMissingRoleIsNamed) {
  api::PostgresDatabaseSpec db{
      .cluster = "hippo", .name = "x", .grants = {{.role = "nobody", .privileges = {"CONNECT"}}}};
  absl::Status s = ApplyDatabase(Target(), db);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_EQ(s.message(), "grant on database x to nobody: role \"nobody\" does not exist");
}

TEST_F(ApplyTest, UnreachableServerIsUnavailable) {
  PostgresTarget t = Target();
  t.password = "wrong-secret";
  absl::Status s = ApplyRole(t, Role("app"), "");
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(std::string(s.message()).find("wrong-secret"), std::string::npos);
}

}  // namespace
}  // namespace quorum::postgresobjects
