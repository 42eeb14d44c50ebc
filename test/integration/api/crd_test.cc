// The committed CRDs against the real API server: each file in deploy/crds is
// exactly what cmd/crdgen generates from this server's OpenAPI documents (and
// crdgen generates no other), the server accepts the EtcdCluster CRD as a
// structural schema and serves it, and its defaults and descriptions work
// there. The PostgresCluster CRD's rules are exercised on the server by
// postgrescluster_crd_test.cc. On another Kubernetes minor than the pinned one
// (make test-matrix) the committed CRDs are still installed and exercised, but not
// compared byte for byte: they carry the pinned version's Kubernetes schemas.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_defaults.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::api {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const std::string kCrdDir = std::string(QUORUM_SOURCE_DIR) + "/deploy/crds";
const std::string kCommitted = kCrdDir + "/etcd.aenix.io_etcdclusters.yaml";
// Every CRD Quorum serves, as crdgen names its file.
const char* const kCrdFiles[] = {
    "etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml",
    "etcd.aenix.io_etcdbackupschedules.yaml", "postgres.quorum.dev_postgresclusters.yaml",
    "postgres.quorum.dev_postgresbackups.yaml", "postgres.quorum.dev_postgresroles.yaml",
    "postgres.quorum.dev_postgresdatabases.yaml"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs a command line; returns its exit status and fills `output` with
// stdout and stderr.
int RunCommand(const std::string& command, std::string& output) {
  const std::string log = ::testing::TempDir() + "crd-test-command.log";
  const int status = std::system((command + " >" + log + " 2>&1").c_str());
  output = ReadFile(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Where two texts first differ, as "line N: committed ... / generated ...".
std::string FirstDifference(const std::string& committed, const std::string& generated) {
  std::istringstream a(committed), b(generated);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "no difference";
    if (!more_a || !more_b || la != lb) {
      return "line " + std::to_string(line) + ":\n  committed: " + (more_a ? la : "<end>") +
             "\n  generated: " + (more_b ? lb : "<end>");
    }
  }
}

// Server-side applies the committed CRD (testenv's field manager, shared
// with every other test that installs it) and waits until it is served.
void InstallCrd(kube::Client& client) {
  absl::Status installed = testenv::InstallCrd(client, kCommitted);
  ASSERT_TRUE(installed.ok()) << installed;
}

// The Kubernetes minor ("1.36") that hack/tools/kube pins: the committed CRDs embed
// the Kubernetes types' schemas (descriptions, enums) of that version's API server
// (hack/update-crds.sh), so only its server can reproduce their bytes.
std::string PinnedMinor() {
  std::ifstream in(std::string(QUORUM_SOURCE_DIR) + "/hack/tools/kube/go.mod");
  const std::string kRequire = "require k8s.io/kubernetes v";
  for (std::string line; std::getline(in, line);) {
    if (!absl::StartsWith(line, kRequire)) continue;
    const std::string version = line.substr(kRequire.size());  // 1.36.3
    return version.substr(0, version.rfind('.'));
  }
  return "";
}

class CrdTest : public testenv::IntegrationTest {
 protected:
  // Whether this control plane runs the pinned version (or does not say: one started
  // before controlplane.sh recorded it). Elsewhere (make test-matrix) the tests still
  // run crdgen against the server but do not compare bytes with the committed files.
  bool RunsThePinnedVersion() const {
    std::ifstream env(control_plane().dir + "/env");
    const std::string kExport = "export QUORUM_K8S_VERSION='";
    for (std::string line; std::getline(env, line);) {
      if (!absl::StartsWith(line, kExport) || line.back() != '\'') continue;
      return line.substr(kExport.size(), line.size() - kExport.size() - 1) == PinnedMinor();
    }
    return true;
  }
};

TEST_F(CrdTest, CommittedCrdsAreWhatCrdgenGeneratesFromThisApiServer) {
  const std::string crdgen = std::string(QUORUM_BINARY_DIR) + "/cmd/crdgen/crdgen";
  ASSERT_TRUE(std::filesystem::exists(crdgen)) << crdgen << " is missing: build the crdgen target";
  const std::string dir = ::testing::TempDir() + "crds-" + ns();
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(std::filesystem::create_directories(dir));
  std::string log;
  const int rc = RunCommand(
      crdgen + " --kubeconfig " + control_plane().kubeconfig + " --output-dir " + dir, log);
  ASSERT_EQ(rc, 0) << log;
  size_t generated_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++generated_files;
  }
  EXPECT_EQ(generated_files, std::size(kCrdFiles)) << "crdgen writes a CRD this test does not know";
  for (const char* file : kCrdFiles) {
    const std::string committed_path = kCrdDir + "/" + file;
    const std::string generated = ReadFile(dir + "/" + file);
    const std::string committed = ReadFile(committed_path);
    ASSERT_FALSE(committed.empty()) << committed_path << " is missing";
    ASSERT_FALSE(generated.empty()) << "crdgen did not write " << file << ": " << log;
    EXPECT_TRUE(!RunsThePinnedVersion() || generated == committed)
        << committed_path << " is stale; run hack/update-crds.sh. First difference at "
        << FirstDifference(committed, generated);
    EXPECT_TRUE(absl::StartsWith(committed, "# generated by cmd/crdgen; do not edit")) << file;
    // Well below the API server's request and etcd's object limits (~1.5 MiB).
    EXPECT_LT(committed.size(), 1024u * 1024u) << file;
  }
  std::filesystem::remove_all(dir);
}

TEST_F(CrdTest, CrdgenWritesOneCrdAsAsked) {
  const std::string crdgen = std::string(QUORUM_BINARY_DIR) + "/cmd/crdgen/crdgen";
  const std::string out = ::testing::TempDir() + "postgresclusters-" + ns() + ".yaml";
  std::string log;
  ASSERT_EQ(RunCommand(crdgen + " --kubeconfig " + control_plane().kubeconfig +
                           " --crd postgresclusters --output " + out,
                       log),
            0)
      << log;
  const std::string written = ReadFile(out);
  EXPECT_TRUE(absl::StrContains(written, "name: postgresclusters.postgres.quorum.dev")) << written;
  if (RunsThePinnedVersion()) {
    EXPECT_EQ(written, ReadFile(kCrdDir + "/postgres.quorum.dev_postgresclusters.yaml"));
  }
  std::filesystem::remove(out);
  EXPECT_NE(RunCommand(crdgen + " --kubeconfig " + control_plane().kubeconfig +
                           " --crd postgresqls --output " + out,
                       log),
            0);
  EXPECT_TRUE(absl::StrContains(log, "--crd takes the plural")) << log;
}

TEST_F(CrdTest, InstallsAndIsEstablished) {
  InstallCrd(client());
  auto crd = client().Get(kCrds, "", std::string(kEtcdClusterCrdName));
  ASSERT_TRUE(crd.ok()) << crd.status();
  for (const Json& c : (*crd)["status"]["conditions"]) {
    if (c["type"] == "NonStructuralSchema") ADD_FAILURE() << c.dump();
  }
  EXPECT_EQ((*crd)["status"]["acceptedNames"]["kind"], "EtcdCluster");

  // A second identical apply writes nothing.
  const std::string rv = (*crd)["metadata"]["resourceVersion"];
  InstallCrd(client());
  auto again = client().Get(kCrds, "", std::string(kEtcdClusterCrdName));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)["metadata"]["resourceVersion"], rv);
}

TEST_F(CrdTest, TheSchemaDefaultsAnEmptyClusterWithoutAnyWebhook) {
  InstallCrd(client());
  const Json bare = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                     {"kind", "EtcdCluster"},
                     {"metadata", {{"name", "bare"}}}};
  auto created = client().Create(kEtcdClusters, ns(), bare);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)["spec"]["replicas"], 3);
  EXPECT_EQ((*created)["spec"]["storage"], DefaultEtcdStorage());

  // Fields the schema does not know are pruned, not stored.
  Json extra = bare;
  extra["metadata"]["name"] = "extra";
  extra["spec"] = {{"notAField", {{"source", "s3"}}}, {"replicas", 1}};
  auto pruned = client().Create(kEtcdClusters, ns(), extra);
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_FALSE((*pruned)["spec"].contains("notAField"));
}

// Issue 14: the schema alone caps spec.replicas, so an object that would make
// the operator allocate per member cannot be stored even without webhooks.
TEST_F(CrdTest, TheSchemaRefusesFiftyMillionReplicas) {
  InstallCrd(client());
  Json huge = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
               {"kind", "EtcdCluster"},
               {"metadata", {{"name", "huge"}}},
               {"spec", {{"replicas", 50000000}}}};
  auto refused = client().Create(kEtcdClusters, ns(), huge);
  EXPECT_TRUE(kube::IsInvalid(refused.status())) << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "spec.replicas")) << refused.status();
  huge["spec"]["replicas"] = 9;
  EXPECT_TRUE(client().Create(kEtcdClusters, ns(), huge).ok());
}

// Issue 35.5: the /scale subresource, as kubectl scale and autoscalers use it:
// spec.replicas through it, and the members the status reports with their
// pods' selector.
TEST_F(CrdTest, KubectlScaleChangesReplicasThroughTheScaleSubresource) {
  InstallCrd(client());
  const Json cluster = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                        {"kind", "EtcdCluster"},
                        {"metadata", {{"name", "scaled"}}},
                        {"spec", {{"replicas", 3}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), cluster).ok());
  const Json status = {
      {"status",
       {{"replicas", 3},
        {"selector", "app.kubernetes.io/instance=scaled,app.kubernetes.io/name=etcd"}}}};
  auto written = client().Patch(kEtcdClusters, ns(), "scaled", kube::PatchType::kMerge, status,
                                {.subresource = "status"});
  ASSERT_TRUE(written.ok()) << written.status();

  std::string out;
  const std::string kubectl = control_plane().bin_dir + "/kubectl --kubeconfig " +
                              control_plane().kubeconfig + " -n " + ns();
  ASSERT_EQ(RunCommand(kubectl + " scale etcdcluster/scaled --replicas=5", out), 0) << out;
  auto after = client().Get(kEtcdClusters, ns(), "scaled");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)["spec"]["replicas"], 5);
  auto scale = client().Get(kEtcdClusters, ns(), "scaled", "scale");
  ASSERT_TRUE(scale.ok()) << scale.status();
  EXPECT_EQ((*scale)["spec"]["replicas"], 5) << scale->dump();
  EXPECT_EQ((*scale)["status"]["replicas"], 3) << scale->dump();
  EXPECT_EQ((*scale)["status"]["selector"],
            "app.kubernetes.io/instance=scaled,app.kubernetes.io/name=etcd")
      << scale->dump();
  // The schema's bounds hold through /scale too.
  EXPECT_NE(RunCommand(kubectl + " scale etcdcluster/scaled --replicas=50000000", out), 0) << out;
}

TEST_F(CrdTest, KubectlExplainShowsOurDescriptions) {
  InstallCrd(client());
  std::string out;
  const std::string kubectl = control_plane().bin_dir + "/kubectl";
  const bool explained = Eventually(
      [&] {
        return RunCommand(kubectl + " --kubeconfig " + control_plane().kubeconfig +
                              " explain etcdcluster.spec.security.tls",
                          out) == 0;
      },
      absl::Seconds(30));
  ASSERT_TRUE(explained) << out;
  EXPECT_TRUE(absl::StrContains(out, "peerTrustedCASecret")) << out;
  EXPECT_TRUE(absl::StrContains(out, "TLS material")) << out;
  ASSERT_EQ(RunCommand(kubectl + " --kubeconfig " + control_plane().kubeconfig +
                           " explain etcdcluster.spec.podTemplate.spec.containers.resources",
                       out),
            0)
      << out;
  EXPECT_TRUE(absl::StrContains(out, "limits")) << out;  // from the Kubernetes OpenAPI
}

}  // namespace
}  // namespace quorum::api
