// `kubectl quorum report`, `logs`, `etcdctl` and `defrag` on the real control
// plane (no kubelet: pods never start). The report holds the cluster, its
// pods and Secrets — the Secrets by name and key names only, with their
// value nowhere in the archive even where a ConfigMap copied it; logs names
// the pods that have not started on stderr and succeeds; etcdctl and defrag
// without etcdctl on PATH, or on a PostgresCluster, exit 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"
#include "test/integration/kubectl/plugin_fixture.h"

namespace quorum::kubectl {
namespace {

using controllers::kEtcdClusters;
using controllers::kPostgresClusters;
using testing::Json;

constexpr char kPassword[] = "integration-Passw0rd-42";

class KubectlQuorumReportTest : public testing::PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    Json cluster = testing::EtcdClusterManifest("etcd-a");
    cluster["spec"]["security"] = {{"enableAuth", true}};
    Json status = testing::EtcdClusterStatus("etcd-a", ns(), true);
    status["status"]["authSecretName"] = "etcd-a-root-auth";
    Create(kEtcdClusters, cluster, status);
    const Json labels = {{"app.kubernetes.io/name", "etcd"},
                         {"app.kubernetes.io/instance", "etcd-a"}};
    for (const char* pod : {"etcd-a-0", "etcd-a-1"}) {
      ASSERT_TRUE(client().Create(kube::kPods, ns(), testing::Pod(pod, labels)).ok()) << pod;
    }
    Create(
        kube::kSecrets,
        {{"apiVersion", "v1"},
         {"kind", "Secret"},
         {"metadata", {{"name", "etcd-a-root-auth"}}},
         {"data",
          {{"username", absl::Base64Escape("root")}, {"password", absl::Base64Escape(kPassword)}}}},
        nullptr);
    Create(kube::kConfigMaps,
           {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "etcd-a-copy"}, {"labels", labels}}},
            {"data", {{"oops", std::string("password=") + kPassword}}}},
           nullptr);
    char tmpl[] = "/tmp/kubectl-quorum-report-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    PluginTest::TearDown();
  }

  // Every file of the archive, concatenated (tar -O).
  std::string Contents(const std::string& archive) {
    const std::string out = dir_ + "/contents";
    EXPECT_EQ(std::system(("tar -xzOf " + archive + " > " + out).c_str()), 0);
    return testing::ReadWhole(out);
  }

  std::string dir_;
};

TEST_F(KubectlQuorumReportTest, HoldsTheClusterItsPodsAndSecretsWithoutAnySecretValue) {
  const std::string archive = dir_ + "/r.tar.gz";
  const testing::PluginRun run = Run({"report", "etcd-a", "-o", archive});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(absl::StrContains(run.out, "wrote " + archive)) << run.out;
  EXPECT_EQ(std::filesystem::status(archive).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  const std::string listing_path = dir_ + "/listing";
  ASSERT_EQ(std::system(("tar -tzf " + archive + " > " + listing_path).c_str()), 0);
  const std::string listing = testing::ReadWhole(listing_path);
  for (const char* file :
       {"/README.md", "/cluster.json", "/status.json", "/objects/Pod/etcd-a-0.json",
        "/objects/ConfigMap/etcd-a-copy.json", "/secrets/etcd-a-root-auth.json", "/events.json"}) {
    EXPECT_TRUE(absl::StrContains(listing, file)) << file << " not in:\n" << listing;
  }
  const std::string contents = Contents(archive);
  EXPECT_TRUE(absl::StrContains(contents, "\"kind\": \"EtcdCluster\""));
  EXPECT_TRUE(absl::StrContains(contents, "\"password\": \"REDACTED\""));
  EXPECT_TRUE(absl::StrContains(contents, "password=REDACTED"));  // the ConfigMap's copy
  EXPECT_FALSE(absl::StrContains(contents, kPassword));
  EXPECT_FALSE(absl::StrContains(contents, absl::Base64Escape(kPassword)));
  // The pods never started: their logs are named as missing in the README.
  EXPECT_TRUE(absl::StrContains(contents, "log of pod etcd-a-0 container main: not started"))
      << contents;
}

TEST_F(KubectlQuorumReportTest, LogsNamesPodsNotStartedOnStderrAndSucceeds) {
  const testing::PluginRun run = Run({"logs", "etcd-a", "--tail", "5"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_TRUE(absl::StrContains(run.err, "pod etcd-a-0 container main: not started")) << run.err;
  EXPECT_TRUE(absl::StrContains(run.err, "pod etcd-a-1 container main: not started")) << run.err;
  EXPECT_EQ(Run({"logs", "etcd-a", "--tail", "-3"}).exit_code, 2);
  EXPECT_EQ(Run({"logs", "nope"}).exit_code, 2);
}

TEST_F(KubectlQuorumReportTest, EtcdctlAndDefragExitTwoWithoutEtcdctlOrForAPostgresCluster) {
  const std::vector<std::string> base = {"--kubeconfig", control_plane().kubeconfig, "-n", ns()};
  for (const char* cmd : {"etcdctl", "defrag"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {cmd, "etcd-a"});
    const testing::PluginRun run =
        testing::RunPlugin(args, {{"KUBECONFIG", ""}, {"PATH", "/nonexistent"}});
    EXPECT_EQ(run.exit_code, 2) << cmd << ": " << run.err;
    EXPECT_TRUE(absl::StrContains(run.err, "etcdctl not found on PATH")) << run.err;
  }
  Create(kPostgresClusters, testing::PostgresClusterManifest("pg-a", "etcd-a"), nullptr);
  EXPECT_EQ(Run({"defrag", "pg/pg-a"}).exit_code, 2);  // etcdctl missing or not an EtcdCluster
}

}  // namespace
}  // namespace quorum::kubectl
