#include "src/controllers/postgrescluster/users.h"

#include <gtest/gtest.h>

namespace quorum::postgrescluster {
namespace {

std::string Verifier(const UserSpec& u) { return "SCRAM-SHA-256$" + u.name; }

TEST(PlanUserSqlTest, CreatesWhatIsMissingAndAltersWhatExists) {
  const std::vector<UserSpec> users = {
      {.name = "app", .databases = {"app", "shared"}, .password = "pw"},
      {.name = "ops", .databases = {"shared"}, .options = {"CREATEDB"}, .password = "pw2"}};
  EXPECT_EQ(PlanUserSql(users, {"postgres"}, {"postgres"}, Verifier),
            (std::vector<std::string>{
                "CREATE ROLE \"app\" WITH LOGIN PASSWORD 'SCRAM-SHA-256$app'",
                "CREATE DATABASE \"app\" OWNER \"app\"", "CREATE DATABASE \"shared\" OWNER \"app\"",
                "CREATE ROLE \"ops\" WITH LOGIN CREATEDB PASSWORD 'SCRAM-SHA-256$ops'"}));
  // Second pass: roles exist (passwords and options re-asserted), databases kept.
  EXPECT_EQ(PlanUserSql(users, {"postgres", "app", "ops"}, {"app", "shared"}, Verifier),
            (std::vector<std::string>{
                "ALTER ROLE \"app\" WITH LOGIN PASSWORD 'SCRAM-SHA-256$app'",
                "ALTER ROLE \"ops\" WITH LOGIN CREATEDB PASSWORD 'SCRAM-SHA-256$ops'"}));
}

TEST(PlanUserSqlTest, NoPasswordClauseWithoutAPassword) {
  EXPECT_EQ(PlanUserSql({{.name = "app"}}, {}, {}, Verifier),
            (std::vector<std::string>{"CREATE ROLE \"app\" WITH LOGIN"}));
}

TEST(UsersOfTest, ReadsSpecAndSecretNames) {
  PostgresCluster cluster;
  cluster.metadata = {.name = "hippo", .ns = "db"};
  cluster.spec.users = {{.name = "app_rw", .databases = {"app"}, .options = {"NOLOGIN"}}};
  cluster.spec.monitoring.exporter.enabled = false;
  std::string asked;
  const std::vector<UserSpec> users = UsersOf(cluster, [&](const std::string& secret) {
    asked = secret;
    return std::string("pw");
  });
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(asked, "hippo-user-app-rw");
  EXPECT_EQ(users[0].databases, std::vector<std::string>{"app"});
  EXPECT_EQ(users[0].options, std::vector<std::string>{"NOLOGIN"});
  EXPECT_EQ(users[0].password, "pw");
}

}  // namespace
}  // namespace quorum::postgrescluster
