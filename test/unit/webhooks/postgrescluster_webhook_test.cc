// The PostgresCluster admission handlers, called directly with
// AdmissionRequests.
#include "src/webhooks/postgrescluster_webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "src/runtime/http_server.h"
#include "test/examples/examples.h"

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;
using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionRequest Request(std::string operation, Json object, Json old_object = nullptr) {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.kind = {"postgres.quorum.dev", "v1alpha1", "PostgresCluster"};
  r.resource = {"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
  r.name = "hippo";
  r.namespace_name = "db";
  r.operation = std::move(operation);
  r.object = std::move(object);
  r.old_object = std::move(old_object);
  return r;
}

Json Cluster(const char* spec) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", "hippo"}, {"namespace", "db"}}},
          {"spec", Json::parse(spec)}};
}

constexpr char kMinimal[] = R"({"postgresVersion": 17, "instances": [
    {"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})";

TEST(MutatePostgresClusterTest, PatchesInTheMissingDefaults) {
  const Json obj = Cluster(kMinimal);
  const AdmissionResponse r = MutatePostgresCluster(Request("CREATE", obj));
  EXPECT_TRUE(r.allowed);
  ASSERT_TRUE(r.patch.has_value());
  // Objects gain members ("add"); the instances list is replaced whole,
  // as json_patch.h does for every array.
  for (const Json& op : *r.patch) {
    EXPECT_TRUE(op["op"] == "add" || op["path"] == "/spec/instances") << op.dump();
  }
  const Json patched = obj.patch(*r.patch);
  const Json& set = patched["spec"]["instances"][0];
  EXPECT_EQ(set["name"], "main");
  EXPECT_EQ(set["replicas"], 1);
  EXPECT_EQ(set["dataVolumeClaimSpec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(patched["spec"]["patroni"], Json::parse(R"({"leaderLeaseDurationSeconds": 30,
      "syncPeriodSeconds": 10, "retryTimeoutSeconds": 10, "podAPIAccess": true,
      "dcs": {"type": "kubernetes"}})"));
}

TEST(MutatePostgresClusterTest, ADefaultedClusterNeedsNoPatch) {
  const Json obj = Cluster(kMinimal);
  const Json patched = obj.patch(*MutatePostgresCluster(Request("CREATE", obj)).patch);
  const AdmissionResponse again = MutatePostgresCluster(Request("UPDATE", patched, patched));
  EXPECT_TRUE(again.allowed);
  EXPECT_FALSE(again.patch.has_value());
}

TEST(MutatePostgresClusterTest, LeavesOtherOperationsAndBadObjectsAlone) {
  EXPECT_FALSE(
      MutatePostgresCluster(Request("DELETE", nullptr, Cluster(kMinimal))).patch.has_value());
  AdmissionRequest status = Request("UPDATE", Cluster(kMinimal), Cluster(kMinimal));
  status.sub_resource = "status";
  EXPECT_FALSE(MutatePostgresCluster(status).patch.has_value());
  const AdmissionResponse bad = MutatePostgresCluster(Request("CREATE", Json::array()));
  EXPECT_FALSE(bad.allowed);
  EXPECT_EQ(bad.code, 400);
}

TEST(ValidatePostgresClusterAdmissionTest, TheApiExampleIsAllowed) {
  Json example = examples::PostgresClusterDesignExample();
  ASSERT_TRUE(example.is_object());
  const AdmissionResponse r = ValidatePostgresClusterAdmission(Request("CREATE", example));
  EXPECT_TRUE(r.allowed) << r.message;
  EXPECT_TRUE(r.warnings.empty());
}

TEST(ValidatePostgresClusterAdmissionTest, DeniesListingEveryFieldError) {
  const AdmissionResponse r = ValidatePostgresClusterAdmission(
      Request("CREATE", Cluster(R"({"postgresVersion": 12, "instances": [
          {"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}],
          "patroni": {"podAPIAccess": false}, "users": [{"name": "replicator"}]})")));
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 422);
  EXPECT_TRUE(absl::StartsWith(r.message, "PostgresCluster \"hippo\" is invalid: ")) << r.message;
  EXPECT_TRUE(absl::StrContains(r.message,
                                "spec.postgresVersion: must be a supported PostgreSQL "
                                "major version, 13 to 18 (got 12)"))
      << r.message;
  EXPECT_TRUE(absl::StrContains(r.message, "spec.patroni.podAPIAccess: false needs the etcd DCS"))
      << r.message;
  EXPECT_TRUE(absl::StrContains(r.message,
                                "spec.users[0].name: \"replicator\" is one of Quorum's "
                                "own roles"))
      << r.message;
}

TEST(ValidatePostgresClusterAdmissionTest, AllowsValidClustersWithWarnings) {
  const AdmissionResponse r =
      ValidatePostgresClusterAdmission(Request("CREATE", Cluster(kMinimal)));
  EXPECT_TRUE(r.allowed) << r.message;
  ASSERT_EQ(r.warnings.size(), 1u);  // one instance: no failover
  EXPECT_TRUE(absl::StartsWith(r.warnings[0], "spec.instances: ")) << r.warnings[0];
}

// Issue 34: a clusterRef to an EtcdCluster that lets strangers in is allowed,
// with a warning naming the field; a secure one, or one not there yet, none.
TEST(ValidatePostgresClusterAdmissionTest, WarnsAboutAnInsecureEtcdClusterRef) {
  Json cluster = Cluster(kMinimal);
  cluster["spec"]["instances"][0]["replicas"] = 2;
  cluster["spec"]["patroni"] = {
      {"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}};
  auto etcd = [](bool tls, bool auth) {
    Json e = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdCluster"},
              {"metadata", {{"name", "dcs"}, {"namespace", "db"}}},
              {"spec", {{"replicas", 3}}}};
    if (tls) e["spec"]["security"]["tls"]["serverSecret"] = "dcs-server";
    if (auth) e["spec"]["security"]["enableAuth"] = true;
    return std::make_shared<const Json>(e);
  };
  std::shared_ptr<const Json> stored;
  std::string asked;
  const EtcdClusterGetter get = [&](const std::string& ns, const std::string& name) {
    asked = ns + "/" + name;
    return stored;
  };
  stored = etcd(false, false);
  AdmissionResponse r = ValidatePostgresClusterAdmission(Request("CREATE", cluster), get);
  EXPECT_TRUE(r.allowed) << r.message;
  EXPECT_EQ(asked, "db/dcs");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(r.warnings[0],
                               "spec.patroni.dcs.etcd.clusterRef: EtcdCluster dcs "
                               "has neither TLS for clients nor auth"))
      << r.warnings[0];
  stored = etcd(true, false);
  r = ValidatePostgresClusterAdmission(Request("CREATE", cluster), get);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(r.warnings[0], "no auth (security.enableAuth)")) << r.warnings[0];
  stored = etcd(true, true);
  EXPECT_TRUE(ValidatePostgresClusterAdmission(Request("CREATE", cluster), get).warnings.empty());
  stored = nullptr;
  EXPECT_TRUE(ValidatePostgresClusterAdmission(Request("CREATE", cluster), get).warnings.empty());
}

TEST(ValidatePostgresClusterAdmissionTest, UpdatesAreCheckedAgainstTheStoredObject) {
  const Json old_obj = Cluster(kMinimal);
  const Json etcd = Cluster(R"({"postgresVersion": 17, "instances": [
      {"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}],
      "patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://etcd:2379"]}}}})");
  const AdmissionResponse r = ValidatePostgresClusterAdmission(Request("UPDATE", etcd, old_obj));
  EXPECT_FALSE(r.allowed);
  EXPECT_TRUE(absl::StrContains(
      r.message, "spec.patroni.dcs.type: cannot change from kubernetes to etcd after creation"))
      << r.message;
  // The same object on CREATE is fine.
  EXPECT_TRUE(ValidatePostgresClusterAdmission(Request("CREATE", etcd)).allowed);
}

TEST(ValidatePostgresClusterAdmissionTest, StatusAndDeletesPass) {
  AdmissionRequest status = Request("UPDATE", Cluster("{}"), Cluster("{}"));
  status.sub_resource = "status";
  EXPECT_TRUE(ValidatePostgresClusterAdmission(status).allowed);
  EXPECT_TRUE(ValidatePostgresClusterAdmission(Request("DELETE", nullptr, Cluster("{}"))).allowed);
  // And an invalid object on CREATE does not.
  EXPECT_FALSE(ValidatePostgresClusterAdmission(Request("CREATE", Cluster("{}"))).allowed);
}

TEST(RegisterPostgresClusterWebhooksTest, RegistersBothPathsOnce) {
  runtime::WebhookServer server({.bind_address = "127.0.0.1"});
  ASSERT_TRUE(RegisterPostgresClusterWebhooks(server).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(RegisterPostgresClusterWebhooks(server)));
  EXPECT_EQ(kMutatePostgresClusterPath, "/mutate-postgres-quorum-dev-v1alpha1-postgrescluster");
  EXPECT_EQ(kValidatePostgresClusterPath, "/validate-postgres-quorum-dev-v1alpha1-postgrescluster");
}

}  // namespace
}  // namespace quorum::webhooks
