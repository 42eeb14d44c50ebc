// The aenix etcd-operator v0.4.5's example manifests against a real API
// server with Quorum's committed CRDs and no webhook (as on `make demo`):
// each is stored, and the cluster the reconciler parses from the stored
// object is the one it parses from the object the mutating webhook would have
// defaulted, so a cluster without the webhook behaves the same (issue 35).
// The CRD's transition rules read an absent storage request as the default.
#include "test/examples/aenix_examples.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_types.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::api {
namespace {

using kube::Json;

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};

class AenixExamplesTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    testenv::IntegrationTest::SetUp();
    absl::Status installed = testenv::InstallCrd(
        client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/etcd.aenix.io_etcdclusters.yaml");
    ASSERT_TRUE(installed.ok()) << installed;
  }

  // Creates the example `file` in the test's namespace; returns what the API
  // server stored.
  absl::StatusOr<Json> CreateExample(const std::string& file, const std::string& name) {
    Json obj = examples::LoadAenixExample(file);
    if (!obj.is_object()) return absl::NotFoundError(file);
    obj["metadata"] = {{"name", name}, {"namespace", ns()}};
    return client().Create(kEtcdClusters, ns(), obj);
  }

  absl::Status MergePatch(const std::string& name, const char* patch) {
    return client()
        .Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge, Json::parse(patch))
        .status();
  }
};

TEST_F(AenixExamplesTest, EveryExampleIsStoredAndParsesAsTheWebhookWouldHaveDefaultedIt) {
  int i = 0;
  for (const std::string& file : examples::AenixExampleFiles()) {
    SCOPED_TRACE(file);
    absl::StatusOr<Json> stored = CreateExample(file, "example-" + std::to_string(i++));
    ASSERT_TRUE(stored.ok()) << stored.status();
    Json hooked = examples::LoadAenixExample(file);
    hooked["metadata"] = (*stored)["metadata"];
    DefaultEtcdCluster(hooked);
    absl::StatusOr<EtcdCluster> from_stored = ParseEtcdCluster(*stored);
    absl::StatusOr<EtcdCluster> from_hooked = ParseEtcdCluster(hooked);
    ASSERT_TRUE(from_stored.ok()) << from_stored.status();
    ASSERT_TRUE(from_hooked.ok()) << from_hooked.status();
    EXPECT_EQ(ToJson(from_stored->spec), ToJson(from_hooked->spec));
  }
}

TEST_F(AenixExamplesTest, AnEmptyStorageIsTheDefaultClaimForTheTransitionRules) {
  ASSERT_TRUE(CreateExample("etcdcluster-kamaji.yaml", "kamaji").ok());
  // Writing out the default 4Gi claim changes nothing; growing is fine.
  EXPECT_TRUE(MergePatch("kamaji", R"({"spec": {"storage": {"volumeClaimTemplate": {"spec":
      {"resources": {"requests": {"storage": "4Gi"}}}}}}})")
                  .ok());
  absl::Status shrink = MergePatch("kamaji", R"({"spec": {"storage": {"volumeClaimTemplate":
      {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}}}})");
  EXPECT_TRUE(kube::IsInvalid(shrink)) << shrink;
  EXPECT_TRUE(absl::StrContains(shrink.message(), "cannot shrink")) << shrink;
  absl::Status to_empty_dir = MergePatch("kamaji", R"({"spec": {"storage": {"emptyDir": {}}}})");
  EXPECT_TRUE(kube::IsInvalid(to_empty_dir)) << to_empty_dir;
  EXPECT_TRUE(absl::StrContains(to_empty_dir.message(), "cannot switch")) << to_empty_dir;
}

TEST_F(AenixExamplesTest, BothStorageKindsKeepEmptyDirThroughEdits) {
  ASSERT_TRUE(CreateExample("etcdcluster-full.yaml", "full").ok());
  // emptyDir decides the kind: dropping the ignored template is no switch.
  EXPECT_TRUE(MergePatch("full", R"({"spec": {"storage": {"volumeClaimTemplate": null}}})").ok());
  absl::Status s = MergePatch("full", R"({"spec": {"storage": {"emptyDir": null}}})");
  EXPECT_TRUE(kube::IsInvalid(s)) << s;
}

}  // namespace
}  // namespace quorum::api
