// The psql command's pure half: which Secret a user's credentials are in,
// what it reads of the Secret, and the argv and environment psql runs with —
// never the password in argv.
#include "src/kubectl/psql_command.h"

#include <gtest/gtest.h>

#include <map>

#include "absl/strings/escaping.h"
#include "src/kubectl/exit_code.h"
#include "src/kubectl/psql_exec.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

constexpr char kPassword[] = "s3cr3t-Passw0rd";

api::PostgresCluster Cluster() {
  api::PostgresCluster c;
  c.metadata.name = "pg";
  c.spec.users = {{.name = "app"}, {.name = "report"}};
  c.status.users = {{.name = "app", .secret_name = "pg-user-app"}};
  return c;
}

// A Secret as postgrescluster/builders.cc writes it.
Json Secret(const std::map<std::string, std::string>& values) {
  Json data = Json::object();
  for (const auto& [k, v] : values) data[k] = absl::Base64Escape(v);
  return {{"metadata", {{"name", "pg-user-app"}}}, {"data", data}};
}

Json AppSecret() {
  return Secret({{"username", "app"},
                 {"password", kPassword},
                 {"host", "pg.demo.svc"},
                 {"port", "5432"},
                 {"dbname", "app"},
                 {"sslmode", "verify-full"},
                 {"uri", std::string("postgresql://app:") + kPassword + "@pg.demo.svc:5432/app"},
                 {"ca.crt", "-----BEGIN CERTIFICATE-----\n"}});
}

std::map<std::string, std::string> EnvOf(const PsqlInvocation& inv) {
  return {inv.env.begin(), inv.env.end()};
}

TEST(UserSecretNameTest, SuperuserOrTheStatusRecordOfASpecUser) {
  EXPECT_EQ(*UserSecretName(Cluster(), ""), "pg-superuser");
  EXPECT_EQ(*UserSecretName(Cluster(), "postgres"), "pg-superuser");
  EXPECT_EQ(*UserSecretName(Cluster(), "app"), "pg-user-app");
  absl::StatusOr<std::string> pending = UserSecretName(Cluster(), "report");
  EXPECT_TRUE(absl::IsUnavailable(pending.status())) << pending.status();
  absl::StatusOr<std::string> unknown = UserSecretName(Cluster(), "bob");
  EXPECT_TRUE(absl::IsNotFound(unknown.status())) << unknown.status();
  EXPECT_EQ(ExitCodeFor(unknown.status()), kExitUsage);
  EXPECT_NE(unknown.status().message().find("(it has postgres, app, report)"), std::string::npos)
      << unknown.status();
}

TEST(ParseCredentialsTest, ReadsTheClientKeysAndNamesTheMissingOnes) {
  absl::StatusOr<Credentials> c = ParseCredentials(AppSecret());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->user, "app");
  EXPECT_EQ(c->password, kPassword);
  EXPECT_EQ(c->host, "pg.demo.svc");
  EXPECT_EQ(c->port, "5432");
  EXPECT_EQ(c->dbname, "app");
  EXPECT_EQ(c->ca_pem, "-----BEGIN CERTIFICATE-----\n");

  absl::StatusOr<Credentials> replication =
      ParseCredentials(Secret({{"username", "replicator"}, {"password", "x"}}));
  EXPECT_TRUE(absl::IsFailedPrecondition(replication.status()));
  EXPECT_NE(replication.status().message().find("Secret pg-user-app has no host, port, ca.crt"),
            std::string::npos)
      << replication.status();
  EXPECT_EQ(replication.status().message().find(kPassword), std::string::npos);
}

TEST(BuildPsqlInvocationTest, PutsEverythingButTheUsersArgumentsInTheEnvironment) {
  const Credentials c = *ParseCredentials(AppSecret());
  const PsqlInvocation inv =
      BuildPsqlInvocation(c, {.psql_args = {"-c", "select 1"}}, "/proc/self/fd/3");
  EXPECT_EQ(inv.argv, (std::vector<std::string>{"psql", "-c", "select 1"}));
  EXPECT_EQ(EnvOf(inv), (std::map<std::string, std::string>{{"PGHOST", "pg.demo.svc"},
                                                            {"PGHOSTADDR", ""},
                                                            {"PGPORT", "5432"},
                                                            {"PGUSER", "app"},
                                                            {"PGDATABASE", "app"},
                                                            {"PGPASSWORD", kPassword},
                                                            {"PGSSLMODE", "verify-full"},
                                                            {"PGSSLROOTCERT", "/proc/self/fd/3"}}));
  for (const std::string& arg : inv.argv) {
    EXPECT_EQ(arg.find(kPassword), std::string::npos) << "the password is in argv: " << arg;
  }
}

TEST(BuildPsqlInvocationTest, AHostOverrideByAddressKeepsTheServiceNameForTheCertificate) {
  const Credentials c = *ParseCredentials(AppSecret());
  struct Case {
    std::string host, port, want_host, want_hostaddr, want_port;
  } cases[] = {
      {"127.0.0.1", "15432", "pg.demo.svc", "127.0.0.1", "15432"},
      {"::1", "", "pg.demo.svc", "::1", "5432"},
      {"pg.example.com", "", "pg.example.com", "", "5432"},
  };
  for (const Case& k : cases) {
    std::map<std::string, std::string> env =
        EnvOf(BuildPsqlInvocation(c, {.host = k.host, .port = k.port}, "/ca"));
    EXPECT_EQ(env["PGHOST"], k.want_host) << k.host;
    EXPECT_EQ(env["PGHOSTADDR"], k.want_hostaddr) << k.host;
    EXPECT_EQ(env["PGPORT"], k.want_port) << k.host;
    EXPECT_EQ(env["PGSSLMODE"], "verify-full") << k.host;
  }
}

TEST(FindOnPathTest, FindsTheFirstExecutableAndNothingOnAnEmptyPath) {
  EXPECT_EQ(FindOnPath("sh", "/nonexistent:/bin:/usr/bin"), "/bin/sh");
  EXPECT_EQ(FindOnPath("sh", ""), "");
  EXPECT_EQ(FindOnPath("no-such-program-quorum", "/bin:/usr/bin"), "");
}

}  // namespace
}  // namespace quorum::kubectl
