// `kubectl quorum switchover` on the real control plane: the built plugin's
// one merge patch lands on the PostgresCluster (spec.patroni.switchover and a
// new trigger annotation); while it waits, the test writes the
// status.patroni.switchover records the operator would write (Waiting, then
// Succeeded or Failed) and the plugin reports them with its exit code.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/resources.h"
#include "test/integration/kubectl/plugin_fixture.h"

namespace quorum::kubectl {
namespace {

using controllers::kEtcdClusters;
using controllers::kPostgresClusters;
using testing::Json;

const std::string kTrigger(api::kSwitchoverTriggerAnnotation);

class KubectlQuorumSwitchoverTest : public testing::PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    Create(kPostgresClusters, testing::PostgresClusterManifest("pg-a", "etcd-a"),
           testing::PostgresClusterStatus("pg-a"));
  }

  Json Cluster() {
    auto got = client().Get(kPostgresClusters, ns(), "pg-a");
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? *got : Json::object();
  }

  // The trigger the plugin set, once it is there ("" until then).
  std::string NewTrigger() {
    std::string trigger;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          Json annotations = Cluster()["metadata"].value("annotations", Json::object());
          trigger = annotations.value(kTrigger, "");
          return !trigger.empty();
        },
        absl::Seconds(30)))
        << "the plugin did not set " << kTrigger;
    return trigger;
  }

  void Record(const std::string& trigger, const std::string& result, const std::string& message) {
    WriteStatus(kPostgresClusters, "pg-a",
                {{"status",
                  {{"patroni",
                    {{"switchover",
                      {{"trigger", trigger},
                       {"type", "Switchover"},
                       {"from", "pg-a-main-1"},
                       {"to", "pg-a-main-0"},
                       {"time", testing::Ago(absl::ZeroDuration())},
                       {"result", result},
                       {"message", message}}}}}}}});
  }
};

TEST_F(KubectlQuorumSwitchoverTest, OnePatchSetsTheSpecAndANewTrigger) {
  const testing::PluginRun run = Run({"switchover", "pg-a", "--to", "pg-a-main-0", "--wait=0"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json c = Cluster();
  const std::string trigger = c["metadata"]["annotations"].value(kTrigger, "");
  EXPECT_TRUE(absl::StartsWith(trigger, "kubectl-")) << c["metadata"].dump();
  EXPECT_EQ(run.out, "switchover of PostgresCluster pg-a requested (trigger " + trigger + ")\n");
  EXPECT_EQ(c["spec"]["patroni"]["switchover"],
            (Json{{"enabled", true}, {"targetInstance", "pg-a-main-0"}, {"type", "Switchover"}}));
  EXPECT_EQ(c["metadata"]["generation"], 2) << "one write of the spec";

  // A second request without --to: a new trigger, and Patroni chooses.
  const testing::PluginRun again = Run({"switchover", "pg/pg-a", "--wait", "0"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const Json c2 = Cluster();
  EXPECT_NE(c2["metadata"]["annotations"].value(kTrigger, ""), trigger);
  EXPECT_EQ(c2["spec"]["patroni"]["switchover"], (Json{{"enabled", true}, {"type", "Switchover"}}));
}

TEST_F(KubectlQuorumSwitchoverTest, WaitsPastWaitingForTheResultOfItsOwnTrigger) {
  auto running = RunInBackground({"switchover", "pg-a", "--to", "pg-a-main-0", "--wait", "2m"});
  const std::string trigger = NewTrigger();
  ASSERT_FALSE(trigger.empty());
  Record(trigger, "Waiting", "pg-a-main-0 does not stream from the primary yet");
  Record(trigger, "Succeeded", "");
  const testing::PluginRun run = running.get();
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out,
            "Switchover of PostgresCluster pg-a: Succeeded (pg-a-main-1 -> pg-a-main-0)\n");
}

TEST_F(KubectlQuorumSwitchoverTest, AFailedResultExitsOneWithTheOperatorsMessage) {
  auto running = RunInBackground({"switchover", "pg-a", "--to", "pg-a-main-2", "--failover"});
  const std::string trigger = NewTrigger();
  ASSERT_FALSE(trigger.empty());
  EXPECT_EQ(Cluster()["spec"]["patroni"]["switchover"]["type"], "Failover");
  Record(trigger, "Failed", "pg-a-main-2 is not running");
  const testing::PluginRun run = running.get();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find(": Failed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  pg-a-main-2 is not running\n"), std::string::npos) << run.out;
}

TEST_F(KubectlQuorumSwitchoverTest, AUserWhoMayNotWatchGetsTheResultByRereads) {
  const std::string kubeconfig =
      KubeconfigWithRules("no-watch", Json::array({{{"apiGroups", {"postgres.quorum.dev"}},
                                                    {"resources", {"postgresclusters"}},
                                                    {"verbs", {"get", "patch"}}}}));
  ASSERT_FALSE(kubeconfig.empty());
  auto running = RunInBackground({"switchover", "pg-a", "--to", "pg-a-main-0"}, kubeconfig);
  const std::string trigger = NewTrigger();
  ASSERT_FALSE(trigger.empty());
  Record(trigger, "Succeeded", "");
  const testing::PluginRun run = running.get();
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out,
            "Switchover of PostgresCluster pg-a: Succeeded (pg-a-main-1 -> pg-a-main-0)\n");
}

TEST_F(KubectlQuorumSwitchoverTest, NoResultInTimeExitsOne) {
  const testing::PluginRun run = Run({"switchover", "pg-a", "--wait", "2s"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out, "switchover of PostgresCluster pg-a: no result after 2s\n");
}

TEST_F(KubectlQuorumSwitchoverTest, UnknownClustersAndEtcdClustersExitTwo) {
  const testing::PluginRun missing = Run({"switchover", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "error: PostgresCluster \"nope\" not found in namespace " + ns() + "\n");
  const testing::PluginRun etcd = Run({"switchover", "ec/etcd-a"});
  EXPECT_EQ(etcd.exit_code, 2);
  EXPECT_NE(etcd.err.find("switchover is for PostgresClusters"), std::string::npos) << etcd.err;
  EXPECT_EQ(Run({"switchover", "pg-a", "--failover"}).exit_code, 2) << "--failover needs --to";
}

}  // namespace
}  // namespace quorum::kubectl
