// spec.users inside a real PostgreSQL (Debian's, started here on a loopback
// port as the `postgres` system user): roles and databases are created, a
// second run changes nothing that exists, passwords work for login, and the
// clear password never reaches the server (SCRAM verifiers only).
#include "src/controllers/postgrescluster/users.h"

#include <gtest/gtest.h>

#include "test/integration/local_postgres.h"

namespace quorum::postgrescluster {
namespace {

class UsersTest : public testing::LocalPostgres {
 protected:
  PostgresTarget Target() {
    return {.host = "127.0.0.1", .port = port(), .user = "postgres", .password = "su-secret"};
  }
};

TEST_F(UsersTest, CreatesRolesAndDatabasesIdempotently) {
  std::vector<UserSpec> users = {
      {.name = "app", .databases = {"app"}, .password = "app-pw-1"},
      {.name = "ops", .databases = {"ops", "app"}, .options = {"CREATEDB"}, .password = "ops-pw"}};
  ASSERT_EQ(EnsureUsers(Target(), users), absl::OkStatus());
  EXPECT_TRUE(CanLogin("app", "app-pw-1", "app"));
  EXPECT_TRUE(CanLogin("ops", "ops-pw", "ops"));
  EXPECT_FALSE(CanLogin("app", "wrong", "app"));

  // Again, with a rotated password: the role is altered, nothing fails.
  users[0].password = "app-pw-2";
  ASSERT_EQ(EnsureUsers(Target(), users), absl::OkStatus());
  EXPECT_TRUE(CanLogin("app", "app-pw-2", "app"));
  EXPECT_FALSE(CanLogin("app", "app-pw-1", "app"));

  const std::string log = ServerLog();
  EXPECT_NE(log.find("CREATE ROLE \"app\""), std::string::npos) << "log_statement=all is on";
  EXPECT_EQ(log.find("app-pw-1"), std::string::npos) << "a clear password reached the server";
}

TEST_F(UsersTest, WrongSuperuserPasswordIsUnavailableWithoutThePassword) {
  PostgresTarget t = Target();
  t.password = "nope-secret";
  absl::Status s = EnsureUsers(t, {{.name = "app", .password = "x"}});
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(std::string(s.message()).find("nope-secret"), std::string::npos);
}

}  // namespace
}  // namespace quorum::postgrescluster
