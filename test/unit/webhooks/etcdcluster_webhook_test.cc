// The EtcdCluster admission handlers, called directly with AdmissionRequests.
#include "src/webhooks/etcdcluster_webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "src/runtime/http_server.h"

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;
using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionRequest Request(std::string operation, Json object, Json old_object = nullptr) {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.kind = {"etcd.aenix.io", "v1alpha1", "EtcdCluster"};
  r.resource = {"etcd.aenix.io", "v1alpha1", "etcdclusters"};
  r.name = "test";
  r.namespace_name = "default";
  r.operation = std::move(operation);
  r.object = std::move(object);
  r.old_object = std::move(old_object);
  return r;
}

Json Cluster(const char* spec) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", "test"}, {"namespace", "default"}}},
          {"spec", Json::parse(spec)}};
}

TEST(MutateEtcdClusterTest, PatchesInTheMissingDefaults) {
  const Json obj = Cluster(R"({"replicas": 5})");
  const AdmissionResponse r = MutateEtcdCluster(Request("CREATE", obj));
  EXPECT_TRUE(r.allowed);
  ASSERT_TRUE(r.patch.has_value());
  EXPECT_EQ(*r.patch, Json::parse(R"([{"op": "add", "path": "/spec/storage", "value":
      {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
       "resources": {"requests": {"storage": "4Gi"}}}}}}])"));
  const Json patched = obj.patch(*r.patch);
  EXPECT_EQ(patched["spec"]["replicas"], 5);
}

TEST(MutateEtcdClusterTest, CompletesAVolumeClaimTemplateWithoutTouchingIt) {
  const Json obj = Cluster(
      R"({"replicas": 3, "storage": {"volumeClaimTemplate": {"spec": {"storageClassName": "gp3"}}}})");
  const AdmissionResponse r = MutateEtcdCluster(Request("UPDATE", obj, obj));
  ASSERT_TRUE(r.patch.has_value());
  for (const Json& op : *r.patch) EXPECT_EQ(op["op"], "add") << op.dump();
  const Json pvc = obj.patch(*r.patch)["spec"]["storage"]["volumeClaimTemplate"]["spec"];
  EXPECT_EQ(pvc["storageClassName"], "gp3");
  EXPECT_EQ(pvc["resources"]["requests"]["storage"], "4Gi");
}

TEST(MutateEtcdClusterTest, ADefaultedClusterNeedsNoPatch) {
  const AdmissionResponse r = MutateEtcdCluster(
      Request("CREATE", Cluster(R"({"replicas": 1, "storage": {"emptyDir": {}}})")));
  EXPECT_TRUE(r.allowed);
  EXPECT_FALSE(r.patch.has_value());
}

TEST(MutateEtcdClusterTest, LeavesOtherOperationsAndBadObjectsAlone) {
  EXPECT_FALSE(MutateEtcdCluster(Request("DELETE", nullptr, Cluster("{}"))).patch.has_value());
  AdmissionRequest status = Request("UPDATE", Cluster("{}"), Cluster("{}"));
  status.sub_resource = "status";
  EXPECT_FALSE(MutateEtcdCluster(status).patch.has_value());
  const AdmissionResponse bad = MutateEtcdCluster(Request("CREATE", Json::array()));
  EXPECT_FALSE(bad.allowed);
  EXPECT_EQ(bad.code, 400);
}

TEST(ValidateEtcdClusterAdmissionTest, DeniesListingEveryFieldError) {
  const AdmissionResponse r = ValidateEtcdClusterAdmission(
      Request("CREATE", Cluster(R"({"replicas": 3, "storage": {"emptyDir": {}},
          "options": {"data-dir": "/d"}, "security": {"enableAuth": true}})")));
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 422);
  EXPECT_TRUE(absl::StartsWith(r.message, "EtcdCluster \"test\" is invalid: ")) << r.message;
  EXPECT_TRUE(absl::StrContains(r.message, "spec.options[data-dir]: ")) << r.message;
  EXPECT_TRUE(absl::StrContains(
      r.message,
      "spec.security.enableAuth: requires client and server TLS; set security.tls.managed: "
      "true (Quorum issues the certificates), or security.tls.clientSecret/"
      "clientTrustedCASecret and serverSecret (missing: clientSecret, serverSecret)"))
      << r.message;
}

TEST(ValidateEtcdClusterAdmissionTest, AllowsValidClustersWithWarnings) {
  const AdmissionResponse r = ValidateEtcdClusterAdmission(
      Request("CREATE", Cluster(R"({"replicas": 3, "storage": {"emptyDir": {}},
          "podDisruptionBudgetTemplate": {"spec": {"minAvailable": 1}}})")));
  EXPECT_TRUE(r.allowed) << r.message;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.warnings[0], "minAvailable")) << r.warnings[0];
}

TEST(ValidateEtcdClusterAdmissionTest, UpdatesAreCheckedAgainstTheStoredObject) {
  const Json old_obj = Cluster(R"({"replicas": 3, "storage": {"volumeClaimTemplate": {"spec":
      {"resources": {"requests": {"storage": "10Gi"}}}}}})");
  const Json shrunk = Cluster(R"({"replicas": 3, "storage": {"volumeClaimTemplate": {"spec":
      {"resources": {"requests": {"storage": "1Gi"}}}}}})");
  const AdmissionResponse r = ValidateEtcdClusterAdmission(Request("UPDATE", shrunk, old_obj));
  EXPECT_FALSE(r.allowed);
  EXPECT_TRUE(absl::StrContains(
      r.message, "spec.storage.volumeClaimTemplate.spec.resources.requests.storage: cannot shrink"))
      << r.message;
  // The same object on CREATE is fine.
  EXPECT_TRUE(ValidateEtcdClusterAdmission(Request("CREATE", shrunk)).allowed);
}

TEST(ValidateEtcdClusterAdmissionTest, StatusAndDeletesPass) {
  AdmissionRequest status = Request("UPDATE", Cluster("{}"), Cluster("{}"));
  status.sub_resource = "status";
  EXPECT_TRUE(ValidateEtcdClusterAdmission(status).allowed);
  EXPECT_TRUE(ValidateEtcdClusterAdmission(Request("DELETE", nullptr, Cluster("{}"))).allowed);
}

TEST(RegisterEtcdClusterWebhooksTest, RegistersBothPathsOnce) {
  runtime::WebhookServer server({.bind_address = "127.0.0.1"});
  ASSERT_TRUE(RegisterEtcdClusterWebhooks(server).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(RegisterEtcdClusterWebhooks(server)));
  EXPECT_EQ(kMutateEtcdClusterPath, "/mutate-etcd-aenix-io-v1alpha1-etcdcluster");
  EXPECT_EQ(kValidateEtcdClusterPath, "/validate-etcd-aenix-io-v1alpha1-etcdcluster");
}

}  // namespace
}  // namespace quorum::webhooks
