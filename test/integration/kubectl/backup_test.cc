// `kubectl quorum backup` on the real control plane: the built plugin
// creates a PostgresBackup of the right spec; with --wait, the test writes
// the status the operator would (Complete, or Failed) and the plugin reports
// it with its exit code. An EtcdCluster is refused (exit 2).
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "src/controllers/common/resources.h"
#include "test/integration/kubectl/plugin_fixture.h"

namespace quorum::kubectl {
namespace {

using controllers::kEtcdClusters;
using controllers::kPostgresBackups;
using controllers::kPostgresClusters;
using testing::Json;

class KubectlQuorumBackupTest : public testing::PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    Create(kPostgresClusters, testing::PostgresClusterManifest("pg-a", "etcd-a"),
           testing::PostgresClusterStatus("pg-a"));
  }

  Json Backups() {
    auto list = client().List(kPostgresBackups, ns());
    EXPECT_TRUE(list.ok()) << list.status();
    return list.ok() ? (*list)["items"] : Json::array();
  }

  // The name of the one backup the plugin created, once it exists.
  std::string CreatedBackup() {
    std::string name;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          Json items = Backups();
          if (items.size() == 1) name = items[0]["metadata"]["name"];
          return !name.empty();
        },
        absl::Seconds(30)))
        << "no PostgresBackup was created";
    return name;
  }
};

TEST_F(KubectlQuorumBackupTest, CreatesAPostgresBackupOfTheClustersFirstRepo) {
  const testing::PluginRun run = Run({"backup", "pg-a"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json items = Backups();
  ASSERT_EQ(items.size(), 1u) << items.dump();
  const std::string name = items[0]["metadata"]["name"];
  EXPECT_TRUE(absl::StartsWith(name, "pg-a-20")) << name;
  EXPECT_EQ(items[0]["spec"],
            (Json{{"clusterRef", {{"name", "pg-a"}}}, {"repoName", "repo1"}, {"type", "full"}}));
  EXPECT_EQ(run.out, "postgresbackup/" + name +
                         " created (full backup of PostgresCluster pg-a into repo1)\n");
}

TEST_F(KubectlQuorumBackupTest, WaitsForCompleteAndPrintsTheBackup) {
  auto running = RunInBackground(
      {"backup", "pg/pg-a", "--repo", "repo1", "--type", "incr", "--wait", "--timeout", "2m"});
  const std::string name = CreatedBackup();
  ASSERT_FALSE(name.empty());
  EXPECT_EQ(Backups()[0]["spec"]["type"], "incr");
  WriteStatus(kPostgresBackups, name, {{"status", {{"phase", "Started"}}}});
  WriteStatus(kPostgresBackups, name, testing::PostgresBackupStatus());
  const testing::PluginRun run = running.get();
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("postgresbackup/" + name + ": Complete (20261206-020000F, full in repo1"),
            std::string::npos)
      << run.out;
}

TEST_F(KubectlQuorumBackupTest, AFailedBackupExitsOneWithWhy) {
  auto running = RunInBackground({"backup", "pg-a", "--wait"});
  const std::string name = CreatedBackup();
  ASSERT_FALSE(name.empty());
  WriteStatus(kPostgresBackups, name,
              {{"status",
                {{"phase", "Failed"},
                 {"conditions",
                  {testing::Condition("Failed", "True", "JobFailed", "pgbackrest exited 56",
                                      absl::ZeroDuration())}}}}});
  const testing::PluginRun run = running.get();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find(": Failed: pgbackrest exited 56\n"), std::string::npos) << run.out;
}

TEST_F(KubectlQuorumBackupTest, UnknownReposTypesAndEtcdClustersExitTwo) {
  const testing::PluginRun repo = Run({"backup", "pg-a", "--repo", "repo3"});
  EXPECT_EQ(repo.exit_code, 2);
  EXPECT_NE(repo.err.find("has no repository \"repo3\" (it has repo1)"), std::string::npos)
      << repo.err;
  EXPECT_EQ(Run({"backup", "pg-a", "--type", "weekly"}).exit_code, 2);
  EXPECT_EQ(Run({"backup", "nope"}).exit_code, 2);
  Create(kEtcdClusters, testing::EtcdClusterManifest("etcd-a"), nullptr);
  const testing::PluginRun etcd = Run({"backup", "etcd-a"});
  EXPECT_EQ(etcd.exit_code, 2);
  EXPECT_NE(etcd.err.find("backup of EtcdCluster etcd-a is not supported yet"), std::string::npos)
      << etcd.err;
  EXPECT_TRUE(Backups().empty());
}

}  // namespace
}  // namespace quorum::kubectl
