// The EtcdCluster CRD built from the schema source, on a synthetic index
// with small stand-ins for the Kubernetes types (the real documents are
// exercised by test/integration/api/crd_test.cc).
#include "api/crd.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "api/etcdcluster_defaults.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr char kDoc[] = R"({"components": {"schemas": {
  "io.k8s.api.core.v1.EmptyDirVolumeSource": {"description": "EmptyDir.", "type": "object",
    "properties": {"medium": {"type": "string"}}},
  "io.k8s.api.core.v1.PersistentVolumeClaimSpec": {"type": "object",
    "properties": {"storageClassName": {"type": "string"}}},
  "io.k8s.api.core.v1.PodSpec": {"type": "object", "required": ["containers"],
    "properties": {"containers": {"type": "array", "items": {"type": "object",
      "required": ["name"], "properties": {"name": {"type": "string"}}},
      "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}}},
  "io.k8s.api.core.v1.ServiceSpec": {"type": "object", "properties": {"type": {"type": "string"}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {"type": "object",
    "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.Condition": {"type": "object",
    "required": ["type", "status"], "properties": {"type": {"type": "string"}, "status": {"type": "string"}}}
}}})";

class CrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(index_.Add(Json::parse(kDoc)).ok());
    absl::StatusOr<Json> crd = BuildEtcdClusterCrd(index_);
    ASSERT_TRUE(crd.ok()) << crd.status();
    crd_ = *crd;
    schema_ = crd_["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  }

  // The schema node at a dotted path of properties ("spec.storage.emptyDir").
  const Json& At(const std::string& path) {
    const Json* node = &schema_;
    for (absl::string_view part : absl::StrSplit(path, '.')) {
      const Json& props = (*node)["properties"];
      auto it = props.find(std::string(part));
      if (it == props.end()) {
        ADD_FAILURE() << "no field " << path;
        static const Json kNull;
        return kNull;
      }
      node = &*it;
    }
    return *node;
  }

  OpenApiIndex index_;
  Json crd_, schema_;
};

TEST_F(CrdTest, NamesTheResourceLikeTheAenixOperator) {
  EXPECT_EQ(crd_["apiVersion"], "apiextensions.k8s.io/v1");
  EXPECT_EQ(crd_["kind"], "CustomResourceDefinition");
  EXPECT_EQ(crd_["metadata"]["name"], "etcdclusters.etcd.aenix.io");
  EXPECT_EQ(crd_["spec"]["group"], "etcd.aenix.io");
  EXPECT_EQ(crd_["spec"]["scope"], "Namespaced");
  EXPECT_EQ(crd_["spec"]["names"], Json::parse(R"({"kind": "EtcdCluster",
      "listKind": "EtcdClusterList", "plural": "etcdclusters", "singular": "etcdcluster"})"));
  ASSERT_EQ(crd_["spec"]["versions"].size(), 1u);
  const Json& v = crd_["spec"]["versions"][0];
  EXPECT_EQ(v["name"], "v1alpha1");
  EXPECT_EQ(v["served"], true);
  EXPECT_EQ(v["storage"], true);
  // /scale for kubectl scale and autoscalers (issue 35.5); aenix has status only.
  EXPECT_EQ(v["subresources"], Json::parse(R"({"status": {}, "scale": {
      "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
      "labelSelectorPath": ".status.selector"}})"));
  std::vector<std::string> columns;
  for (const Json& c : v["additionalPrinterColumns"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Replicas", "Ready", "Leader", "Version", "Status", "Age"}));
}

TEST_F(CrdTest, HasEveryFieldOfTheApi) {
  for (const char* path : {"spec.replicas",
                           "spec.options",
                           "spec.storage.emptyDir",
                           "spec.storage.volumeClaimTemplate.metadata.labels",
                           "spec.storage.volumeClaimTemplate.metadata.annotations",
                           "spec.storage.volumeClaimTemplate.metadata.name",
                           "spec.storage.volumeClaimTemplate.spec",
                           "spec.podTemplate.metadata.name",
                           "spec.podTemplate.metadata.labels",
                           "spec.podTemplate.metadata.annotations",
                           "spec.podTemplate.spec",
                           "spec.serviceTemplate.metadata.labels",
                           "spec.serviceTemplate.spec",
                           "spec.headlessServiceTemplate.metadata.annotations",
                           "spec.podDisruptionBudgetTemplate.metadata.labels",
                           "spec.podDisruptionBudgetTemplate.spec.minAvailable",
                           "spec.podDisruptionBudgetTemplate.spec.maxUnavailable",
                           "spec.security.tls.peerTrustedCASecret",
                           "spec.security.tls.peerSecret",
                           "spec.security.tls.serverTrustedCASecret",
                           "spec.security.tls.serverSecret",
                           "spec.security.tls.clientTrustedCASecret",
                           "spec.security.tls.clientSecret",
                           "spec.security.enableAuth",
                           "status.conditions",
                           "status.observedGeneration",
                           "status.readyReplicas",
                           "status.leader",
                           "status.members",
                           "status.clientEndpoint",
                           "status.clientSecretName"}) {
    const Json& node = At(path);
    EXPECT_TRUE(node.is_object()) << path;
    EXPECT_FALSE(node.value("description", "").empty()) << path << " has no description";
  }
  // Fields inside the Kubernetes types come from the OpenAPI document.
  EXPECT_TRUE(At("spec.podTemplate.spec.containers").is_object());
  EXPECT_TRUE(At("spec.storage.volumeClaimTemplate.spec.storageClassName").is_object());
  EXPECT_TRUE(At("spec.serviceTemplate.spec.type").is_object());
  // spec.bootstrap.restore.source: aenix's restore field (docs/backup.md).
  EXPECT_TRUE(At("spec.bootstrap.restore.source.s3.credentialsSecretRef.name").is_object());
  EXPECT_TRUE(At("spec.bootstrap.restore.source.pvc.subPath").is_object());
  std::vector<std::string> member_fields;
  for (const auto& [k, v] : At("status.members")["items"]["properties"].items()) {
    member_fields.push_back(k);
  }
  EXPECT_EQ(member_fields,
            (std::vector<std::string>{"clientURL", "dataUID", "healthy", "id", "isLeader",
                                      "isLearner", "name", "peerURL", "version"}));
}

TEST_F(CrdTest, DefaultsAndLimits) {
  EXPECT_EQ(At("spec")["default"], Json::object());
  EXPECT_EQ(At("spec.replicas")["default"], 3);
  EXPECT_EQ(At("spec.replicas")["minimum"], 0);
  EXPECT_EQ(At("spec.replicas")["format"], "int32");
  EXPECT_EQ(At("spec.storage")["default"], DefaultEtcdStorage());
  EXPECT_EQ(At("spec.options")["additionalProperties"], Json::parse(R"({"type": "string"})"));
  EXPECT_EQ(At("spec.podDisruptionBudgetTemplate.spec.minAvailable")["x-kubernetes-int-or-string"],
            true);
  // podTemplate.spec is merged over Quorum's pod: no field of it is required.
  EXPECT_FALSE(At("spec.podTemplate.spec").contains("required"));
  EXPECT_EQ(At("status.conditions")["x-kubernetes-list-map-keys"], Json::array({"type"}));
  EXPECT_EQ(At("status.conditions")["items"]["required"], Json::array({"type", "status"}));
}

TEST_F(CrdTest, ImmutabilityRulesSitOnTheParent) {
  const Json& rules = At("spec")["x-kubernetes-validations"];
  ASSERT_EQ(rules.size(), 6u);
  for (const Json& r : rules) {
    EXPECT_TRUE(absl::StrContains(r["rule"].get<std::string>(), "oldSelf")) << r.dump();
    EXPECT_FALSE(r["message"].get<std::string>().empty());
  }
  EXPECT_EQ(rules[0]["fieldPath"], ".storage");
  EXPECT_TRUE(absl::StrContains(rules[1]["rule"].get<std::string>(), "quantity("));
  EXPECT_EQ(rules[2]["fieldPath"], ".security.tls.peerSecret");
  EXPECT_EQ(rules[3]["fieldPath"], ".security.tls.serverSecret");
  EXPECT_EQ(rules[4]["fieldPath"], ".security.enableAuth");
  // aenix admits both storage kinds and `storage: {}`: no rule on storage itself.
  EXPECT_FALSE(At("spec.storage").contains("x-kubernetes-validations"));
}

TEST_F(CrdTest, AMissingKubernetesTypeIsAnError) {
  OpenApiIndex partial;
  ASSERT_TRUE(partial.Add(Json::parse(R"({"components": {"schemas": {}}})")).ok());
  absl::StatusOr<Json> crd = BuildEtcdClusterCrd(partial);
  EXPECT_TRUE(absl::IsNotFound(crd.status())) << crd.status();
}

}  // namespace
}  // namespace quorum::api
