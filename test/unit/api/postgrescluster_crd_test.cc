// The PostgresCluster CRD built from the schema source, on a synthetic index
// with small stand-ins for the Kubernetes types (the real documents, and the
// CEL rules on a real API server, are exercised by
// test/integration/api/postgrescluster_crd_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "api/crd.h"
#include "api/postgrescluster.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr char kDoc[] = R"({"components": {"schemas": {
  "io.k8s.api.core.v1.PersistentVolumeClaimSpec": {"type": "object",
    "properties": {"storageClassName": {"type": "string"}}},
  "io.k8s.api.core.v1.ResourceRequirements": {"type": "object",
    "properties": {"limits": {"type": "object", "additionalProperties": {"type": "string"}}}},
  "io.k8s.api.core.v1.Affinity": {"type": "object",
    "properties": {"nodeAffinity": {"type": "object"}}},
  "io.k8s.api.core.v1.Toleration": {"type": "object", "properties": {"key": {"type": "string"}}},
  "io.k8s.api.core.v1.TopologySpreadConstraint": {"type": "object",
    "required": ["maxSkew", "topologyKey", "whenUnsatisfiable"],
    "properties": {"maxSkew": {"type": "integer"}, "topologyKey": {"type": "string"},
                   "whenUnsatisfiable": {"type": "string"}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.Condition": {"type": "object",
    "required": ["type", "status"], "properties": {"type": {"type": "string"}, "status": {"type": "string"}}},
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {"type": "object",
    "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}}
}}})";

// What the EtcdCluster CRD needs besides.
constexpr char kEtcdTypes[] = R"({"components": {"schemas": {
  "io.k8s.api.core.v1.EmptyDirVolumeSource": {"type": "object"},
  "io.k8s.api.core.v1.PodSpec": {"type": "object"},
  "io.k8s.api.core.v1.ServiceSpec": {"type": "object"}
}}})";

class PostgresCrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(index_.Add(Json::parse(kDoc)).ok());
    absl::StatusOr<Json> crd = BuildPostgresClusterCrd(index_);
    ASSERT_TRUE(crd.ok()) << crd.status();
    crd_ = *crd;
    schema_ = crd_["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  }

  // The schema node at a dotted path of properties; "[]" steps into items
  // ("spec.instances[].name").
  const Json& At(const std::string& path) {
    const Json* node = &schema_;
    if (path.empty()) return *node;
    for (absl::string_view part : absl::StrSplit(path, '.')) {
      std::string key(part);
      const bool items = absl::EndsWith(key, "[]");
      if (items) key.resize(key.size() - 2);
      const Json& props = (*node)["properties"];
      auto it = props.find(key);
      if (it == props.end()) {
        ADD_FAILURE() << "no field " << path;
        static const Json kNull;
        return kNull;
      }
      node = items ? &(*it)["items"] : &*it;
    }
    return *node;
  }

  // The rules at `path`, concatenated (for substring checks).
  std::string Rules(const std::string& path) {
    std::string out;
    for (const Json& r : At(path).value("x-kubernetes-validations", Json::array())) {
      out += r["rule"].get<std::string>() + "\n";
    }
    return out;
  }

  OpenApiIndex index_;
  Json crd_, schema_;
};

TEST_F(PostgresCrdTest, NamesTheResource) {
  EXPECT_EQ(crd_["metadata"]["name"], "postgresclusters.postgres.quorum.dev");
  EXPECT_EQ(crd_["spec"]["group"], "postgres.quorum.dev");
  EXPECT_EQ(crd_["spec"]["scope"], "Namespaced");
  EXPECT_EQ(crd_["spec"]["names"], Json::parse(R"({"kind": "PostgresCluster",
      "listKind": "PostgresClusterList", "plural": "postgresclusters",
      "singular": "postgrescluster", "shortNames": ["pgc"]})"));
  const Json& v = crd_["spec"]["versions"][0];
  EXPECT_EQ(v["name"], "v1alpha1");
  EXPECT_EQ(v["subresources"], Json::parse(R"({"status": {}})"));
  std::vector<std::string> columns;
  for (const Json& c : v["additionalPrinterColumns"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Version", "Instances", "Primary", "DCS", "Ready", "Age"}));
  EXPECT_EQ(CrdFileName(crd_), "postgres.quorum.dev_postgresclusters.yaml");
}

TEST_F(PostgresCrdTest, HasEveryFieldOfTheApiWithADescription) {
  for (const char* path : {"spec.postgresVersion",
                           "spec.image",
                           "spec.instances",
                           "spec.instances[].name",
                           "spec.instances[].replicas",
                           "spec.instances[].dataVolumeClaimSpec",
                           "spec.instances[].resources",
                           "spec.instances[].affinity",
                           "spec.instances[].tolerations",
                           "spec.instances[].topologySpreadConstraints",
                           "spec.instances[].metadata.labels",
                           "spec.instances[].metadata.annotations",
                           "spec.patroni.leaderLeaseDurationSeconds",
                           "spec.patroni.syncPeriodSeconds",
                           "spec.patroni.retryTimeoutSeconds",
                           "spec.patroni.dynamicConfiguration",
                           "spec.patroni.podAPIAccess",
                           "spec.patroni.dcs.type",
                           "spec.patroni.dcs.etcd.clusterRef.name",
                           "spec.patroni.dcs.etcd.endpoints",
                           "spec.patroni.dcs.etcd.tlsSecret",
                           "spec.patroni.dcs.etcd.authSecret",
                           "spec.patroni.dcs.etcd.namespace",
                           "spec.patroni.switchover.enabled",
                           "spec.patroni.switchover.targetInstance",
                           "spec.patroni.switchover.type",
                           "spec.users[].name",
                           "spec.users[].databases",
                           "spec.users[].options",
                           "spec.service.type",
                           "spec.service.metadata.labels",
                           "spec.proxy.pgBouncer.replicas",
                           "spec.proxy.pgBouncer.poolMode",
                           "spec.proxy.pgBouncer.config",
                           "spec.proxy.pgBouncer.resources",
                           "spec.proxy.pgBouncer.image",
                           "status.proxy.pgBouncer.replicas",
                           "status.proxy.pgBouncer.readyReplicas",
                           "status.proxy.pgBouncer.service",
                           "status.conditions",
                           "status.observedGeneration",
                           "status.instances[].name",
                           "status.instances[].replicas",
                           "status.instances[].readyReplicas",
                           "status.instances[].updatedReplicas",
                           "status.readyInstances",
                           "status.primary",
                           "status.primaryService",
                           "status.replicaService",
                           "status.users[].secretName",
                           "status.patroni.systemIdentifier",
                           "status.patroni.switchover.trigger"}) {
    const Json& node = At(path);
    EXPECT_TRUE(node.is_object()) << path;
    EXPECT_FALSE(node.value("description", "").empty()) << path << " has no description";
  }
  // Kubernetes types come from the OpenAPI document.
  EXPECT_TRUE(At("spec.instances[].dataVolumeClaimSpec.storageClassName").is_object());
  EXPECT_TRUE(At("spec.instances[].affinity.nodeAffinity").is_object());
  EXPECT_TRUE(At("spec.instances[].tolerations[].key").is_object());
  EXPECT_TRUE(At("spec.proxy.pgBouncer.resources.limits").is_object());
  // Only dynamicConfiguration keeps unknown fields.
  EXPECT_EQ(At("spec.patroni.dynamicConfiguration")["x-kubernetes-preserve-unknown-fields"], true);
  EXPECT_EQ(crd_.dump().find("x-kubernetes-preserve-unknown-fields"),
            crd_.dump().rfind("x-kubernetes-preserve-unknown-fields"));
}

TEST_F(PostgresCrdTest, DefaultsLimitsAndListTypes) {
  EXPECT_EQ(At("spec")["required"], Json::array({"postgresVersion", "instances"}));
  EXPECT_EQ(At("spec.postgresVersion")["minimum"], kMinPostgresMajor);
  EXPECT_EQ(At("spec.postgresVersion")["maximum"], kMaxPostgresMajor);
  EXPECT_EQ(At("spec.instances")["minItems"], 1);
  EXPECT_EQ(At("spec.instances")["maxItems"], 16);
  EXPECT_EQ(At("spec.instances")["x-kubernetes-list-map-keys"], Json::array({"name"}));
  EXPECT_EQ(At("spec.instances[].name")["default"], "main");
  EXPECT_EQ(At("spec.instances[]")["required"], Json::array({"dataVolumeClaimSpec"}));
  EXPECT_EQ(At("spec.instances[].replicas")["default"], 1);
  EXPECT_EQ(At("spec.instances[].replicas")["minimum"], 0);
  EXPECT_EQ(At("spec.instances[].topologySpreadConstraints")["x-kubernetes-list-map-keys"],
            Json::array({"topologyKey", "whenUnsatisfiable"}));
  EXPECT_EQ(At("spec.patroni")["default"], Json::object());
  EXPECT_EQ(At("spec.patroni.leaderLeaseDurationSeconds")["default"], 30);
  EXPECT_EQ(At("spec.patroni.leaderLeaseDurationSeconds")["minimum"], 20);
  EXPECT_EQ(At("spec.patroni.syncPeriodSeconds")["default"], 10);
  EXPECT_EQ(At("spec.patroni.retryTimeoutSeconds")["default"], 10);
  // Defaulted by dcs.type in the webhook and the operator, not the schema.
  EXPECT_FALSE(At("spec.patroni.podAPIAccess").contains("default"));
  EXPECT_EQ(At("spec.patroni.dcs")["default"], Json::object());
  EXPECT_EQ(At("spec.patroni.dcs.type")["default"], "kubernetes");
  EXPECT_EQ(At("spec.patroni.dcs.type")["enum"], Json::array({"kubernetes", "etcd"}));
  EXPECT_FALSE(At("spec.patroni.dcs.etcd.namespace").contains("default"))
      << "the reconciler derives the key prefix";
  EXPECT_EQ(At("spec.patroni.dcs.etcd.endpoints")["maxItems"], 7);
  EXPECT_EQ(At("spec.patroni.dcs.etcd.endpoints")["x-kubernetes-list-type"], "set");
  EXPECT_EQ(At("spec.patroni.switchover.type")["default"], "Switchover");
  EXPECT_EQ(At("spec.service.type")["default"], "ClusterIP");
  EXPECT_EQ(At("spec.users")["x-kubernetes-list-map-keys"], Json::array({"name"}));
  EXPECT_EQ(At("spec.users[].name")["pattern"], "^[a-z_][a-z0-9_]{0,62}$");
  EXPECT_EQ(At("status.conditions")["items"]["required"], Json::array({"type", "status"}));
}

TEST_F(PostgresCrdTest, TheDcsTypeRuleSitsOnSpecSoAddingDcsLaterIsAChange) {
  const std::string spec_rules = Rules("spec");
  EXPECT_TRUE(absl::StrContains(spec_rules, "oldSelf.patroni.dcs.type")) << spec_rules;
  // Nowhere below spec may a rule use oldSelf for the DCS: it would not run
  // when the old object lacked the field.
  EXPECT_FALSE(absl::StrContains(Rules("spec.patroni"), "oldSelf"));
  EXPECT_FALSE(absl::StrContains(Rules("spec.patroni.dcs"), "oldSelf"));
  bool found = false;
  for (const Json& r : At("spec")["x-kubernetes-validations"]) {
    if (r.value("fieldPath", "") == ".patroni.dcs.type") {
      found = true;
      EXPECT_EQ(r["reason"], "FieldValueForbidden");
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(PostgresCrdTest, CelCoversTheEtcdAndPatroniRules) {
  EXPECT_TRUE(absl::StrContains(Rules("spec.patroni.dcs.etcd"), "has(self.clusterRef) !="));
  EXPECT_TRUE(absl::StrContains(Rules("spec.patroni.dcs.etcd"), "tlsSecret"));
  EXPECT_TRUE(
      absl::StrContains(Rules("spec.patroni.dcs.etcd.endpoints"), "startsWith('https://')"));
  EXPECT_TRUE(absl::StrContains(Rules("spec.patroni"), "2 * self.?retryTimeoutSeconds"));
  EXPECT_TRUE(absl::StrContains(Rules("spec.patroni"), "podAPIAccess"));
  EXPECT_TRUE(absl::StrContains(Rules("spec.patroni.dcs"), "has(self.etcd)"));
  EXPECT_TRUE(absl::StrContains(Rules("spec.users[].name"), "'replicator'"));
  EXPECT_TRUE(absl::StrContains(Rules("spec.instances[].dataVolumeClaimSpec"), "'storage'"));
  // postgresVersion's update rules need the status (the webhook's).
  EXPECT_EQ(Rules("spec.postgresVersion"), "");
  const std::string root = Rules("");
  EXPECT_TRUE(absl::StrContains(root, "size(self.metadata.name) <= 50"));
}

TEST_F(PostgresCrdTest, BuildCrdsGivesAllSevenInAFixedOrder) {
  // EtcdCluster needs PodSpec and friends, which kDoc alone lacks.
  EXPECT_TRUE(absl::IsNotFound(BuildCrds(index_).status()));
  ASSERT_TRUE(index_.Add(Json::parse(kEtcdTypes)).ok());
  absl::StatusOr<std::vector<Json>> crds = BuildCrds(index_);
  ASSERT_TRUE(crds.ok()) << crds.status();
  ASSERT_EQ(crds->size(), 7u);
  EXPECT_EQ(CrdFileName((*crds)[0]), "etcd.aenix.io_etcdclusters.yaml");
  EXPECT_EQ(CrdFileName((*crds)[1]), "etcd.aenix.io_etcdbackups.yaml");
  EXPECT_EQ(CrdFileName((*crds)[2]), "etcd.aenix.io_etcdbackupschedules.yaml");
  EXPECT_EQ(CrdFileName((*crds)[3]), "postgres.quorum.dev_postgresclusters.yaml");
  EXPECT_EQ((*crds)[3], crd_);
  EXPECT_EQ(CrdFileName((*crds)[4]), "postgres.quorum.dev_postgresbackups.yaml");
  EXPECT_EQ(CrdFileName((*crds)[5]), "postgres.quorum.dev_postgresroles.yaml");
  EXPECT_EQ(CrdFileName((*crds)[6]), "postgres.quorum.dev_postgresdatabases.yaml");
  EXPECT_EQ(CrdFileName(Json::object()), "");
}

TEST_F(PostgresCrdTest, AMissingKubernetesTypeIsAnError) {
  OpenApiIndex partial;
  ASSERT_TRUE(partial.Add(Json::parse(R"({"components": {"schemas": {}}})")).ok());
  EXPECT_TRUE(absl::IsNotFound(BuildPostgresClusterCrd(partial).status()));
}

}  // namespace
}  // namespace quorum::api
