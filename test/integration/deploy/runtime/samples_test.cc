// deploy/samples: every sample is accepted by the real API server with the
// CRDs installed (server-side apply, dry run, so nothing runs), and every
// feature the docs promise has its sample. Also `kubectl explain` prints the
// CRD's descriptions for the fields people look up first.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cmd/crdgen/yaml_to_json.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::deploytest {
namespace {

using kube::Json;
namespace fs = std::filesystem;

std::string Source(const std::string& relative) {
  return std::string(QUORUM_SOURCE_DIR) + "/" + relative;
}

bool HaveCrd(const std::string& file) { return fs::exists(Source("deploy/crds/" + file)); }

constexpr char kPostgresCrd[] = "postgres.quorum.dev_postgresclusters.yaml";

// Sample files per resource and feature (docs/install.md lists them).
const std::vector<std::string> kEtcdSamples = {
    "etcdcluster-minimal.yaml", "etcdcluster-design-example.yaml", "etcdcluster-emptydir.yaml",
    "etcdcluster-tls.yaml",     "etcdcluster-tls-auth.yaml",       "etcdcluster-managed-tls.yaml",
    "etcdcluster-pdb.yaml",     "etcdcluster-scaled-to-zero.yaml"};
const std::vector<std::string> kPostgresSamples = {
    "postgrescluster-kubernetes-dcs.yaml", "postgrescluster-etcd-clusterref.yaml",
    "postgrescluster-etcd-external.yaml",  "postgrescluster-users.yaml",
    "postgrescluster-switchover.yaml",     "postgrescluster-volume-backups.yaml",
    "postgres-roles-databases.yaml"};

std::string RunCommand(const std::string& cmd, int* exit_code) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

class SamplesTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    for (const auto& entry : fs::directory_iterator(Source("deploy/crds"))) {
      ASSERT_TRUE(testenv::InstallCrd(client(), entry.path().string()).ok()) << entry.path();
    }
  }

  // Server-side apply of every document of `file` in the test namespace,
  // as a dry run.
  void DryRunApply(const std::string& file) {
    for (const YAML::Node& doc : YAML::LoadAllFromFile(Source("deploy/samples/" + file))) {
      Json object = crdgen::YamlNodeToJson(doc);
      if (!object.is_object() || object.empty()) continue;
      object["metadata"]["namespace"] = ns();
      const std::string api_version = object["apiVersion"];
      const size_t slash = api_version.find('/');
      const std::string kind = object["kind"];
      std::string plural = absl::AsciiStrToLower(kind) + "s";
      const kube::GroupVersionResource gvr{api_version.substr(0, slash),
                                           api_version.substr(slash + 1), plural};
      auto applied = client().Apply(
          gvr, ns(), object, {.field_manager = "quorum-samples", .force = true, .dry_run = true});
      EXPECT_TRUE(applied.ok()) << file << " (" << kind << "): " << applied.status();
    }
  }

  std::string Explain(const std::string& field, int* exit_code) {
    return RunCommand(absl::StrCat(control_plane().bin_dir, "/kubectl --kubeconfig ",
                                   control_plane().kubeconfig, " explain ", field, " 2>&1"),
                      exit_code);
  }
};

TEST_F(SamplesTest, EveryFeatureHasASampleAndEverySampleIsListed) {
  std::set<std::string> listed(kEtcdSamples.begin(), kEtcdSamples.end());
  listed.insert(kPostgresSamples.begin(), kPostgresSamples.end());
  for (const std::string& f : listed) EXPECT_TRUE(fs::exists(Source("deploy/samples/" + f))) << f;
  for (const auto& entry : fs::directory_iterator(Source("deploy/samples"))) {
    EXPECT_TRUE(listed.count(entry.path().filename().string()))
        << entry.path() << " is tested by no test: add it to a list here";
  }
}

TEST_F(SamplesTest, EtcdClusterSamplesAreAcceptedByTheApiServer) {
  for (const std::string& f : kEtcdSamples) DryRunApply(f);
}

TEST_F(SamplesTest, PostgresClusterSamplesAreAcceptedByTheApiServer) {
  ASSERT_TRUE(HaveCrd(kPostgresCrd)) << "deploy/crds/" << kPostgresCrd << " is missing";
  for (const std::string& f : kPostgresSamples) DryRunApply(f);
}

TEST_F(SamplesTest, ASampleWithAnInvalidSpecIsRejected) {
  // The dry run really validates: the CRD schema rejects a negative replicas.
  Json bad = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdCluster"},
              {"metadata", {{"name", "bad"}, {"namespace", ns()}}},
              {"spec", {{"replicas", -1}}}};
  auto applied =
      client().Apply({"etcd.aenix.io", "v1alpha1", "etcdclusters"}, ns(), bad,
                     {.field_manager = "quorum-samples", .force = true, .dry_run = true});
  EXPECT_FALSE(applied.ok());
}

TEST_F(SamplesTest, KubectlExplainDescribesEtcdClusterTls) {
  int code = -1;
  const std::string out = Explain("etcdcluster.spec.security.tls", &code);
  EXPECT_EQ(code, 0) << out;
  for (const char* text : {"peerSecret", "peerTrustedCASecret", "serverSecret",
                           "clientTrustedCASecret", "clientSecret", "DESCRIPTION"}) {
    EXPECT_TRUE(absl::StrContains(out, text)) << text << " in:\n" << out;
  }
  EXPECT_TRUE(absl::StrContains(out, "ca.crt")) << "field descriptions name the Secret keys:\n"
                                                << out;
}

TEST_F(SamplesTest, KubectlExplainDescribesPostgresClusterDcs) {
  ASSERT_TRUE(HaveCrd(kPostgresCrd)) << "deploy/crds/" << kPostgresCrd << " is missing";
  int code = -1;
  const std::string out = Explain("postgrescluster.spec.patroni.dcs", &code);
  EXPECT_EQ(code, 0) << out;
  for (const char* text : {"type", "etcd", "kubernetes", "DESCRIPTION"}) {
    EXPECT_TRUE(absl::StrContains(out, text)) << text << " in:\n" << out;
  }
  const std::string etcd = Explain("postgrescluster.spec.patroni.dcs.etcd", &code);
  for (const char* text : {"clusterRef", "endpoints", "tlsSecret", "authSecret"}) {
    EXPECT_TRUE(absl::StrContains(etcd, text)) << text << " in:\n" << etcd;
  }
}

}  // namespace
}  // namespace quorum::deploytest
