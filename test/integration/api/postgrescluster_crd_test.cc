// The committed PostgresCluster CRD on the real API server, with no webhook
// at all: it installs (server-side apply: it is large), API.md's example is
// accepted and the schema fills in the defaults, and the schema and CEL
// rules alone refuse invalid manifests naming the field — above all a change
// of the DCS type, including adding `dcs: {type: etcd}` to a cluster created
// without any dcs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "test/examples/examples.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::api {
namespace {

using kube::Json;

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};
const std::string kCrdFile =
    std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/postgres.quorum.dev_postgresclusters.yaml";

// A small valid cluster on the kubernetes DCS, with `spec_patch` merged over
// its spec (null removes a field).
Json Cluster(const std::string& name, const char* spec_patch = "{}") {
  Json obj = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
              {"kind", "PostgresCluster"},
              {"metadata", {{"name", name}}},
              {"spec", Json::parse(R"({"postgresVersion": 17, "instances": [
                  {"replicas": 2, "dataVolumeClaimSpec": {"accessModes": ["ReadWriteOnce"],
                   "resources": {"requests": {"storage": "1Gi"}}}}]})")}};
  obj["spec"].merge_patch(Json::parse(spec_patch));
  return obj;
}

class PostgresClusterCrdTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    absl::Status installed = testenv::InstallCrd(client(), kCrdFile);
    ASSERT_TRUE(installed.ok()) << installed;
  }

  absl::Status MergePatch(const std::string& name, const char* patch) {
    return client()
        .Patch(kPostgresClusters, ns(), name, kube::PatchType::kMerge, Json::parse(patch))
        .status();
  }
};

TEST_F(PostgresClusterCrdTest, InstallsAsAStructuralSchemaWithItsNames) {
  auto crd = client().Get(kCrds, "", std::string(kPostgresClusterCrdName));
  ASSERT_TRUE(crd.ok()) << crd.status();
  for (const Json& c : (*crd)["status"]["conditions"]) {
    if (c["type"] == "NonStructuralSchema") ADD_FAILURE() << c.dump();
  }
  EXPECT_EQ((*crd)["status"]["acceptedNames"]["kind"], "PostgresCluster");
  EXPECT_EQ((*crd)["status"]["acceptedNames"]["shortNames"], Json::array({"pgc"}));
  // A second identical apply writes nothing.
  const std::string rv = (*crd)["metadata"]["resourceVersion"];
  ASSERT_TRUE(testenv::InstallCrd(client(), kCrdFile).ok());
  auto again = client().Get(kCrds, "", std::string(kPostgresClusterCrdName));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)["metadata"]["resourceVersion"], rv);
}

TEST_F(PostgresClusterCrdTest, TheApiExampleIsAcceptedAsWritten) {
  Json example = examples::PostgresClusterDesignExample();
  ASSERT_TRUE(example.is_object());
  example["metadata"]["namespace"] = ns();
  auto created = client().Create(kPostgresClusters, ns(), example);
  ASSERT_TRUE(created.ok()) << created.status();
  const Json& spec = (*created)["spec"];
  EXPECT_EQ(spec["postgresVersion"], 17);
  EXPECT_EQ(spec["instances"][0]["replicas"], 3);
  EXPECT_EQ(spec["patroni"]["dcs"]["etcd"]["clusterRef"]["name"], "dcs");
  EXPECT_EQ(spec["patroni"]["dynamicConfiguration"]["postgresql"]["parameters"]["max_connections"],
            "200");
  // What the example leaves out, the schema fills in.
  EXPECT_EQ(spec["patroni"]["retryTimeoutSeconds"], 10);
  EXPECT_FALSE(spec["patroni"].contains("podAPIAccess"))
      << "defaulted by dcs.type in the webhook and the operator, not the schema";
  EXPECT_EQ(spec["users"][0]["databases"], Json::array({"app"}));
}

TEST_F(PostgresClusterCrdTest, TheSchemaDefaultsAMinimalClusterWithoutAnyWebhook) {
  Json bare = Cluster("bare");
  bare["spec"]["instances"][0].erase("replicas");
  auto created = client().Create(kPostgresClusters, ns(), bare);
  ASSERT_TRUE(created.ok()) << created.status();
  const Json& spec = (*created)["spec"];
  EXPECT_EQ(spec["instances"][0]["name"], "main");
  EXPECT_EQ(spec["instances"][0]["replicas"], 1);
  EXPECT_EQ(spec["patroni"], Json::parse(R"({"leaderLeaseDurationSeconds": 30,
      "syncPeriodSeconds": 10, "retryTimeoutSeconds": 10,
      "dcs": {"type": "kubernetes"}})"));
  EXPECT_FALSE(spec.contains("image")) << "the image follows postgresVersion; never defaulted";

  // Fields the schema does not know are pruned, except inside
  // dynamicConfiguration (Patroni's own, free-form).
  auto pruned = client().Create(kPostgresClusters, ns(),
                                Cluster("pruned",
                                        R"({"telemetry": {"s3": {}}, "backups": {"s3": {}},
              "patroni": {"dynamicConfiguration": {"anything": {"x": 1}}}})"));
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_FALSE((*pruned)["spec"].contains("telemetry"));
  EXPECT_FALSE((*pruned)["spec"]["backups"].contains("s3"));
  EXPECT_EQ((*pruned)["spec"]["patroni"]["dynamicConfiguration"]["anything"]["x"], 1);
}

TEST_F(PostgresClusterCrdTest, EveryFieldIsKeptAsWritten) {
  const Json spec = Json::parse(R"({
    "postgresVersion": 16, "image": "example.com/pg:16",
    "instances": [{"name": "a", "replicas": 2,
      "metadata": {"labels": {"team": "db"}, "annotations": {"x": "y"}},
      "dataVolumeClaimSpec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"],
                              "resources": {"requests": {"storage": "5Gi"}}},
      "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}},
      "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                          "labelSelector": {"matchLabels": {"app": "x"}}}}]}},
      "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "db",
                       "effect": "NoSchedule"}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                     "whenUnsatisfiable": "ScheduleAnyway"}]}],
    "patroni": {"leaderLeaseDurationSeconds": 40, "syncPeriodSeconds": 10,
      "retryTimeoutSeconds": 15, "podAPIAccess": false,
      "dynamicConfiguration": {"postgresql": {"parameters": {"work_mem": "8MB"}, "use_pg_rewind": true}},
      "dcs": {"type": "etcd", "etcd": {"endpoints": ["https://etcd-0.etcd:2379", "https://[fd00::2]:2379"],
              "tlsSecret": "etcd-tls", "authSecret": "etcd-auth", "namespace": "/db/"}},
      "switchover": {"enabled": true, "targetInstance": "full-a-1", "type": "Failover"}},
    "users": [{"name": "admin", "databases": ["a", "b"], "options": ["CREATEROLE", "CREATEDB"]}],
    "service": {"type": "LoadBalancer", "metadata": {"annotations": {"lb": "1"}}}})");
  Json obj = Cluster("full");
  obj["spec"] = spec;
  auto created = client().Create(kPostgresClusters, ns(), obj);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)["spec"], spec) << "the server pruned or defaulted something";
}

struct InvalidManifest {
  const char* name;
  const char* spec_patch;    // merged over Cluster()'s spec
  const char* field;         // must appear in the API server's error
  const char* message_part;  // and this part of our message (or of the schema's)
};

TEST_F(PostgresClusterCrdTest, InvalidManifestsAreRefusedByTheApiServerNamingTheField) {
  const InvalidManifest cases[] = {
      {"version-too-old", R"({"postgresVersion": 12})", "spec.postgresVersion",
       "greater than or equal to 13"},
      {"no-instances", R"({"instances": []})", "spec.instances", "at least 1"},
      {"no-storage",
       R"({"instances": [{"dataVolumeClaimSpec": {"accessModes": ["ReadWriteOnce"]}}]})",
       "spec.instances[0].dataVolumeClaimSpec", "resources.requests.storage is required"},
      {"duplicate-sets",
       R"({"instances": [{"name": "a", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}, {"name": "a", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})",
       "spec.instances[1]", "Duplicate value"},
      {"lease-too-short",
       R"({"patroni": {"leaderLeaseDurationSeconds": 19, "syncPeriodSeconds": 5, "retryTimeoutSeconds": 2}})",
       "spec.patroni.leaderLeaseDurationSeconds", "greater than or equal to 20"},
      {"timings", R"({"patroni": {"leaderLeaseDurationSeconds": 29}})",
       "spec.patroni.leaderLeaseDurationSeconds", "loop_wait + 2*retry_timeout <= ttl"},
      {"no-api-with-kubernetes-dcs", R"({"patroni": {"podAPIAccess": false}})",
       "spec.patroni.podAPIAccess", "needs dcs.type etcd"},
      {"etcd-without-block", R"({"patroni": {"dcs": {"type": "etcd"}}})", "spec.patroni.dcs.etcd",
       "type etcd needs the etcd block"},
      {"etcd-block-with-kubernetes",
       R"({"patroni": {"dcs": {"etcd": {"endpoints": ["http://etcd:2379"]}}}})",
       "spec.patroni.dcs.etcd", "only for type etcd"},
      {"endpoints-and-cluster-ref",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://etcd:2379"], "clusterRef": {"name": "dcs"}}}}})",
       "spec.patroni.dcs.etcd", "exactly one of endpoints"},
      {"neither-endpoints-nor-cluster-ref",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": []}}}})",
       "spec.patroni.dcs.etcd", "exactly one of endpoints"},
      {"eight-endpoints",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://a", "http://b", "http://c", "http://d", "http://e", "http://f", "http://g", "http://h"]}}}})",
       "spec.patroni.dcs.etcd.endpoints", "at most 7"},
      {"mixed-schemes",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://a:2379", "https://b:2379"]}}}})",
       "spec.patroni.dcs.etcd.endpoints", "all http:// or all https://"},
      {"endpoint-with-path",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["https://a:2379/v3"]}}}})",
       "spec.patroni.dcs.etcd.endpoints[0]", "should match"},
      {"tls-with-http",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://a:2379"], "tlsSecret": "etcd-tls"}}}})",
       "spec.patroni.dcs.etcd.tlsSecret", "needs https:// endpoints"},
      {"secrets-with-cluster-ref",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"clusterRef": {"name": "dcs"}, "authSecret": "etcd-auth"}}}})",
       "spec.patroni.dcs.etcd.clusterRef", "cannot be used with clusterRef"},
      {"failover-without-target", R"({"patroni": {"switchover": {"type": "Failover"}}})",
       "spec.patroni.switchover.targetInstance", "needs targetInstance"},
      {"reserved-user", R"({"users": [{"name": "replicator"}]})", "spec.users[0].name",
       "Quorum's own roles"},
      {"bad-user-name", R"({"users": [{"name": "App"}]})", "spec.users[0].name", "should match"},
      {"superuser-option", R"({"users": [{"name": "app", "options": ["SUPERUSER"]}]})",
       "spec.users[0].options[0]", "Unsupported value"},
      {"createrole-before-16",
       R"({"postgresVersion": 15, "users": [{"name": "app", "options": ["CREATEROLE"]}]})",
       "spec.users", "postgresVersion 16 or later"},
      {"template-database", R"({"users": [{"name": "app", "databases": ["template1"]}]})",
       "spec.users[0].databases", "templates"},
      {"bad-service-type", R"({"service": {"type": "ExternalName"}})", "spec.service.type",
       "Unsupported value"},
      {"statefulset-name-too-long",
       R"({"instances": [{"name": "a2345678901234567890123456789012345678901234567890", "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})",
       "metadata.name", "must be at most 52 characters"},
  };
  for (const InvalidManifest& c : cases) {
    auto created = client().Create(kPostgresClusters, ns(), Cluster(c.name, c.spec_patch));
    EXPECT_FALSE(created.ok()) << c.name << " was accepted";
    EXPECT_TRUE(kube::IsInvalid(created.status())) << c.name << ": " << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(), c.field))
        << c.name << ": the error does not name " << c.field << ": " << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(), c.message_part))
        << c.name << ": " << created.status();
    EXPECT_FALSE(absl::StrContains(created.status().message(), "denied the request"))
        << c.name << ": a webhook answered: " << created.status();
  }
  // The cluster's own name is checked too.
  auto long_name = client().Create(kPostgresClusters, ns(),
                                   Cluster("a23456789012345678901234567890123456789012345678901"));
  EXPECT_TRUE(absl::StrContains(long_name.status().message(), "metadata.name"))
      << long_name.status();
  EXPECT_TRUE(absl::StrContains(long_name.status().message(), "at most 50")) << long_name.status();
}

TEST_F(PostgresClusterCrdTest, TheApiServerRefusesAChangeOfTheDcsType) {
  ASSERT_TRUE(
      client()
          .Create(
              kPostgresClusters, ns(),
              Cluster(
                  "on-etcd",
                  R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["https://etcd:2379"], "tlsSecret": "etcd-tls"}}}})"))
          .ok());
  absl::Status s = MergePatch(
      "on-etcd", R"({"spec": {"patroni": {"dcs": {"type": "kubernetes", "etcd": null}}}})");
  EXPECT_TRUE(kube::IsInvalid(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.patroni.dcs.type")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "cannot change after creation")) << s;
  // Removing dcs altogether means kubernetes: the same change.
  s = MergePatch("on-etcd", R"({"spec": {"patroni": {"dcs": null}}})");
  EXPECT_TRUE(kube::IsInvalid(s)) << s;
  // Rotating the TLS Secret is fine.
  EXPECT_TRUE(MergePatch("on-etcd",
                         R"({"spec": {"patroni": {"dcs": {"etcd": {"tlsSecret": "etcd-tls-2"}}}}})")
                  .ok());
}

// Issue 14: the CRD alone (no webhook installed here) keeps the keys' location
// fixed, naming the field.
TEST_F(PostgresClusterCrdTest, TheApiServerRefusesMovingTheDcs) {
  ASSERT_TRUE(
      client()
          .Create(
              kPostgresClusters, ns(),
              Cluster(
                  "pinned",
                  R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["https://etcd-0:2379", "https://etcd-1:2379"], "tlsSecret": "etcd-tls"}}}})"))
          .ok());
  ASSERT_TRUE(
      client()
          .Create(
              kPostgresClusters, ns(),
              Cluster(
                  "referring",
                  R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"clusterRef": {"name": "dcs"}}}}})"))
          .ok());
  struct Move {
    const char* name;
    const char* patch;
    const char* field;
  } refused[] = {
      {"pinned",
       R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["https://etcd-2:2379"]}}}}})",
       "spec.patroni.dcs.etcd.endpoints"},
      {"pinned",
       R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["https://etcd-0:2379", "https://etcd-1:2379", "https://etcd-2:2379"]}}}}})",
       "spec.patroni.dcs.etcd.endpoints"},
      {"pinned", R"({"spec": {"patroni": {"dcs": {"etcd": {"namespace": "/moved/"}}}}})",
       "spec.patroni.dcs.etcd.namespace"},
      {"referring",
       R"({"spec": {"patroni": {"dcs": {"etcd": {"clusterRef": {"name": "other"}}}}}})",
       "spec.patroni.dcs.etcd.clusterRef"},
      {"referring", R"({"spec": {"patroni": {"dcs": {"etcd": {"namespace": "/moved/"}}}}})",
       "spec.patroni.dcs.etcd.namespace"},
  };
  for (const Move& m : refused) {
    absl::Status s = MergePatch(m.name, m.patch);
    EXPECT_TRUE(kube::IsInvalid(s)) << m.patch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), m.field)) << m.patch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "cannot change after creation")) << s;
  }
  // Reordering the endpoints moves nothing.
  EXPECT_TRUE(
      MergePatch(
          "pinned",
          R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["https://etcd-1:2379", "https://etcd-0:2379"]}}}}})")
          .ok());
}

TEST_F(PostgresClusterCrdTest, AddingAnEtcdDcsToAClusterCreatedWithoutOneIsRefused) {
  // Created with no patroni block at all.
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("no-dcs")).ok());
  absl::Status s = MergePatch(
      "no-dcs",
      R"({"spec": {"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://etcd:2379"]}}}}})");
  EXPECT_TRUE(kube::IsInvalid(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.patroni.dcs.type")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "an absent dcs means kubernetes")) << s;
  // The same through a whole-object update (PUT), as kubectl replace does.
  auto current = client().Get(kPostgresClusters, ns(), "no-dcs");
  ASSERT_TRUE(current.ok());
  Json replaced = *current;
  replaced["spec"]["patroni"]["dcs"] =
      Json::parse(R"({"type": "etcd", "etcd": {"clusterRef": {"name": "dcs"}}})");
  EXPECT_TRUE(kube::IsInvalid(client().Update(kPostgresClusters, ns(), replaced).status()));
  // Saying "kubernetes" out loud changes nothing and is allowed.
  EXPECT_TRUE(
      MergePatch("no-dcs", R"({"spec": {"patroni": {"dcs": {"type": "kubernetes"}}}})").ok());
}

// A major upgrade is a spec edit the CRD lets through: whether it may happen
// depends on the status (the data's major, an upgrade under way), which CEL
// on the spec cannot read, so the admission webhook decides
// (api/postgrescluster_upgrade_validation.cc); the range still holds.
TEST_F(PostgresClusterCrdTest, ThePostgresMajorMayChangeWithinTheRange) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("major")).ok());
  absl::Status s = MergePatch("major", R"({"spec": {"postgresVersion": 19}})");
  EXPECT_TRUE(kube::IsInvalid(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.postgresVersion")) << s;
  EXPECT_TRUE(MergePatch("major", R"({"spec": {"postgresVersion": 18}})").ok());
  // Everything else stays editable.
  EXPECT_TRUE(
      MergePatch(
          "major",
          R"({"spec": {"patroni": {"leaderLeaseDurationSeconds": 45}, "users": [{"name": "app", "databases": ["app"]}]}})")
          .ok());
}

TEST_F(PostgresClusterCrdTest, TheStatusSubresourceFeedsThePrinterColumns) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("shown")).ok());
  auto status = client().ApplyStatus(
      kPostgresClusters, ns(),
      Json::parse(R"({"apiVersion": "postgres.quorum.dev/v1alpha1", "kind": "PostgresCluster",
          "metadata": {"name": "shown"}, "status": {"observedGeneration": 1,
          "readyInstances": "2/2", "primary": "shown-main-0",
          "instances": [{"name": "main", "replicas": 2, "readyReplicas": 2, "updatedReplicas": 2}],
          "patroni": {"systemIdentifier": "7301234567890123456"},
          "conditions": [{"type": "Ready", "status": "True", "reason": "AllInstancesReady",
            "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})"),
      {.field_manager = "quorum-test", .force = true});
  ASSERT_TRUE(status.ok()) << status.status();
  const std::string out = ::testing::TempDir() + "pgc-" + ns() + ".txt";
  const std::string command = control_plane().bin_dir + "/kubectl --kubeconfig " +
                              control_plane().kubeconfig + " -n " + ns() + " get pgc >" + out +
                              " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(out.c_str());
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "VERSION")) << text.str();
  for (const char* header : {"NAME", "VERSION", "INSTANCES", "PRIMARY", "DCS", "READY", "AGE"}) {
    EXPECT_TRUE(absl::StrContains(text.str(), header)) << header << " in:\n" << text.str();
  }
  for (const char* value : {"shown", "17", "2/2", "shown-main-0", "kubernetes", "True"}) {
    EXPECT_TRUE(absl::StrContains(text.str(), value)) << value << " in:\n" << text.str();
  }
}

}  // namespace
}  // namespace quorum::api
