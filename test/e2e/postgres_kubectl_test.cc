// Issue 38: `kubectl quorum` against a real PostgresCluster and operator on
// the test bed: psql, switchover, restart, logs and report (restore is in
// pgbackrest_test.cc, where a repository exists).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "test/e2e/e2e_env.h"
#include "test/e2e/postgres_e2e.h"

namespace quorum::e2e {
namespace {

using Json = nlohmann::json;

// Issue 38: `kubectl quorum` against a real cluster and operator — psql with
// the Secret's credentials and CA (none decoded by hand), a switchover that
// waits for Patroni's answer, and a query through the new primary.
TEST_F(PostgresClusterE2E, KubectlQuorumPsqlAndSwitchoverOnARunningCluster) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kPostgres, ns(), KubernetesPostgres("kq", 2)).ok());
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("kq") && !Primary("kq").empty(); }, absl::Minutes(6)));
  auto quorum = [&](const std::vector<std::string>& args) { return KubectlQuorum(ns(), args); };
  CommandResult q;
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        q = quorum({"psql", "kq", "--", "-XAtq", "-c",
                    "select current_user || ' ' || (select ssl from pg_stat_ssl where pid = "
                    "pg_backend_pid());"});
        return q.exit_code == 0;
      },
      absl::Minutes(2)))
      << q.output;
  // A boolean concatenated to text reads "true".
  EXPECT_EQ(absl::StripAsciiWhitespace(q.output), "postgres true") << q.output;
  const std::string from = Primary("kq");
  const std::string to = from == "kq-main-0" ? "kq-main-1" : "kq-main-0";
  CommandResult sw;
  ASSERT_TRUE(testenv::Eventually(
      [&] {  // the replica streams within seconds of Ready; until then Patroni's answer waits
        sw = quorum({"switchover", "kq", "--to", to});
        return sw.exit_code == 0;
      },
      absl::Minutes(3)))
      << sw.output;
  EXPECT_TRUE(
      testenv::Eventually([&] { return Primary("kq") == to && Ready("kq"); }, absl::Minutes(2)))
      << "the primary did not move to " << to << ": " << sw.output;
  // The primary Service follows the new primary's label with a lag.
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        q = quorum({"psql", "kq", "--", "-XAtq", "-c", "select pg_is_in_recovery();"});
        return q.exit_code == 0;
      },
      absl::Minutes(1)))
      << q.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(q.output), "f") << q.output;
  // An unknown target is answered at once (exit 1, Failed), nothing moves.
  sw = quorum({"switchover", "kq", "--to", "kq-main-7"});
  EXPECT_NE(sw.exit_code, 0) << sw.output;
  EXPECT_EQ(Primary("kq"), to);

  // restart: every member pod replaced through the operator's roll, a row
  // written before it still there, the cluster writable after it.
  q = quorum({"psql", "kq", "--", "-XAtq", "-c",
              "create table restarted(v int); insert into restarted values (1);"});
  ASSERT_EQ(q.exit_code, 0) << q.output;
  std::map<std::string, std::string> uid_before;
  for (const char* pod : {"kq-main-0", "kq-main-1"}) {
    absl::StatusOr<Json> p = client().Get(kPods, ns(), pod);
    ASSERT_TRUE(p.ok()) << p.status();
    uid_before[pod] = (*p)["metadata"].value("uid", "");
  }
  CommandResult rs = KubectlQuorum(ns(), {"restart", "kq"}, absl::Minutes(12));
  ASSERT_EQ(rs.exit_code, 0) << rs.output;
  EXPECT_TRUE(absl::StrContains(rs.output, "2 members restarted and Ready")) << rs.output;
  for (const auto& [pod, uid] : uid_before) {
    absl::StatusOr<Json> p = client().Get(kPods, ns(), pod);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_NE((*p)["metadata"].value("uid", ""), uid) << pod << " was not replaced";
    EXPECT_TRUE((*p)["metadata"]["annotations"].contains("quorum.dev/restartedAt")) << pod;
  }
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        q = quorum({"psql", "kq", "--", "-XAtq", "-c",
                    "insert into restarted values (2); select count(*) from restarted;"});
        return q.exit_code == 0;
      },
      absl::Minutes(1)))
      << q.output;
  EXPECT_EQ(absl::StripAsciiWhitespace(q.output), "2") << q.output;
}

// Issue 38: `kubectl quorum logs` and `report` on a running PostgresCluster:
// every member's lines, prefixed; an archive with the cluster, its pods and
// its Secrets by name only — the superuser's password nowhere in it.
TEST_F(PostgresClusterE2E, KubectlQuorumLogsAndReportOnAPostgresCluster) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kPostgres, ns(), KubernetesPostgres("kr", 2)).ok());
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("kr") && !Primary("kr").empty(); }, absl::Minutes(6)));
  auto quorum = [&](const std::vector<std::string>& args) { return KubectlQuorum(ns(), args); };
  CommandResult logs = quorum({"logs", "kr", "--tail", "50"});
  EXPECT_EQ(logs.exit_code, 0) << logs.output;
  for (const char* pod : {"[kr-main-0", "[kr-main-1"}) {
    EXPECT_TRUE(absl::StrContains(logs.output, pod)) << pod << ":\n" << logs.output;
  }
  char tmpl[] = "/tmp/quorum-e2e-report-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  absl::Cleanup remove = [&] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  };
  CommandResult report = quorum({"report", "pg/kr", "-o", dir + "/r.tar.gz"});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  CommandResult listing = RunCommand({"tar", "-tzf", dir + "/r.tar.gz"});
  ASSERT_EQ(listing.exit_code, 0) << listing.output;
  for (const char* file : {"/cluster.json", "/secrets/kr-superuser.json",
                           "/objects/Pod/kr-main-0.json", "/logs/kr-main-0/"}) {
    EXPECT_TRUE(absl::StrContains(listing.output, file)) << file << ":\n" << listing.output;
  }
  CommandResult contents = RunCommand({"tar", "-xzOf", dir + "/r.tar.gz"});
  ASSERT_EQ(contents.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(contents.output, "\"kind\": \"PostgresCluster\""));
  absl::StatusOr<Json> secret = client().Get(kSecrets, ns(), "kr-superuser");
  ASSERT_TRUE(secret.ok()) << secret.status();
  const std::string b64 = (*secret)["data"]["password"];
  std::string password;
  ASSERT_TRUE(absl::Base64Unescape(b64, &password));
  ASSERT_GE(password.size(), 8u);
  EXPECT_FALSE(absl::StrContains(contents.output, password)) << "the report holds the password";
  EXPECT_FALSE(absl::StrContains(contents.output, b64)) << "the report holds the password";
}

}  // namespace
}  // namespace quorum::e2e
