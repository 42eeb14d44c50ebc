// PostgresCluster defaulting adds exactly what API.md and the CRD imply, and
// nothing else.
#include "api/postgrescluster_defaults.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test/examples/examples.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Defaulted(Json obj) {
  DefaultPostgresCluster(obj);
  return obj;
}

TEST(PostgresClusterDefaultsTest, AMinimalSpecGetsEveryDefault) {
  const Json obj = {{"spec", Json::parse(R"({"postgresVersion": 17, "instances": [
      {"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})")}};
  EXPECT_EQ(Defaulted(obj)["spec"], Json::parse(R"({"postgresVersion": 17,
      "instances": [{"name": "main", "replicas": 1, "dataVolumeClaimSpec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
      "patroni": {"leaderLeaseDurationSeconds": 30, "syncPeriodSeconds": 10,
        "retryTimeoutSeconds": 10, "podAPIAccess": true, "dcs": {"type": "kubernetes"}}})"));
}

TEST(PostgresClusterDefaultsTest, NeverChangesWhatTheUserSet) {
  const Json spec = Json::parse(R"({"postgresVersion": 15, "image": "example.com/pg:15",
      "instances": [{"name": "a", "replicas": 0, "dataVolumeClaimSpec": {
        "accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "5Gi"}}}}],
      "patroni": {"leaderLeaseDurationSeconds": 60, "syncPeriodSeconds": 5,
        "retryTimeoutSeconds": 20, "podAPIAccess": false,
        "dcs": {"type": "etcd", "etcd": {"endpoints": ["http://e:2379"]}},
        "switchover": {"enabled": true, "type": "Failover", "targetInstance": "x-a-0"}},
      "service": {"type": "LoadBalancer"}})");
  EXPECT_EQ(Defaulted({{"spec", spec}})["spec"], spec);
}

TEST(PostgresClusterDefaultsTest, TheApiExampleOnlyGainsTheMissingFields) {
  const Json example = examples::PostgresClusterDesignExample();
  ASSERT_TRUE(example.is_object());
  Json want = example;
  want["spec"]["patroni"]["retryTimeoutSeconds"] = 10;
  want["spec"]["patroni"]["podAPIAccess"] = false;  // the example uses the etcd DCS
  EXPECT_EQ(Defaulted(example), want);
}

// Issue 15.4: with the etcd DCS the pods need no Kubernetes API rights, so
// they get none unless the spec asks.
TEST(PostgresClusterDefaultsTest, PodApiAccessIsOffByDefaultOnlyWithTheEtcdDcs) {
  Json etcd = {{"spec", Json::parse(R"({"patroni": {"dcs": {"type": "etcd"}}})")}};
  EXPECT_EQ(Defaulted(etcd)["spec"]["patroni"]["podAPIAccess"], false);
  Json asked = {
      {"spec", Json::parse(R"({"patroni": {"podAPIAccess": true, "dcs": {"type": "etcd"}}})")}};
  EXPECT_EQ(Defaulted(asked)["spec"]["patroni"]["podAPIAccess"], true);
  Json k8s = {{"spec", Json::parse(R"({"patroni": {"dcs": {}}})")}};
  EXPECT_EQ(Defaulted(k8s)["spec"]["patroni"]["podAPIAccess"], true);
}

TEST(PostgresClusterDefaultsTest, OptionalBlocksGetTheirDefaultsOnlyWhenPresent) {
  Json obj = {{"spec", Json::parse(R"({"service": {"metadata": {"labels": {"a": "b"}}},
      "patroni": {"switchover": {"enabled": true}, "dcs": {}}})")}};
  const Json spec = Defaulted(obj)["spec"];
  EXPECT_EQ(spec["service"]["type"], "ClusterIP");
  EXPECT_EQ(spec["service"]["metadata"]["labels"]["a"], "b");
  EXPECT_EQ(spec["patroni"]["switchover"]["type"], "Switchover");
  EXPECT_EQ(spec["patroni"]["dcs"]["type"], "kubernetes");
  // No service block, no etcd namespace, no image: those stay absent.
  const Json bare = Defaulted({{"spec", {{"postgresVersion", 16}}}})["spec"];
  EXPECT_FALSE(bare.contains("service"));
  EXPECT_FALSE(bare.contains("image"));
  EXPECT_FALSE(bare["patroni"].contains("switchover"));
}

TEST(PostgresClusterDefaultsTest, EmptyAccessModesAreFilledIn) {
  Json obj = {{"spec", Json::parse(R"({"instances": [
      {"name": "a", "dataVolumeClaimSpec": {"accessModes": []}},
      {"name": "b", "dataVolumeClaimSpec": {"accessModes": null, "storageClassName": "x"}},
      {"name": "c"}]})")}};
  const Json sets = Defaulted(obj)["spec"]["instances"];
  EXPECT_EQ(sets[0]["dataVolumeClaimSpec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(sets[1]["dataVolumeClaimSpec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(sets[1]["dataVolumeClaimSpec"]["storageClassName"], "x");
  // A missing claim spec stays missing: validation says it is required.
  EXPECT_FALSE(sets[2].contains("dataVolumeClaimSpec"));
  EXPECT_EQ(sets[2]["replicas"], 1);
}

TEST(PostgresClusterDefaultsTest, AVolumeRepositoryGetsReadWriteOnce) {
  Json obj = {{"spec", Json::parse(R"({"backups": {"pgbackrest": {"repos": [
      {"name": "repo1", "s3": {"bucket": "b"}},
      {"name": "repo2", "volume": {"volumeClaimSpec": {"resources": {}}}},
      {"name": "repo3", "volume": {"volumeClaimSpec": {"accessModes": ["ReadWriteMany"]}}},
      {"name": "repo4", "volume": 3}, 7]}}})")}};
  const Json repos = Defaulted(obj)["spec"]["backups"]["pgbackrest"]["repos"];
  EXPECT_FALSE(repos[0].contains("volume"));
  EXPECT_EQ(repos[1]["volume"]["volumeClaimSpec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(repos[2]["volume"]["volumeClaimSpec"]["accessModes"], Json::array({"ReadWriteMany"}));
  EXPECT_EQ(repos[3]["volume"], 3);
  EXPECT_EQ(repos[4], 7);
}

TEST(PostgresClusterDefaultsTest, WrongTypesDoNotCrashAndAreKept) {
  EXPECT_EQ(Defaulted(Json("x")), Json("x"));
  EXPECT_EQ(Defaulted(Json::object()), Json::object());  // no spec: left for validation
  EXPECT_EQ(Defaulted({{"spec", 5}})["spec"], 5);
  EXPECT_EQ(Defaulted({{"spec", {{"instances", "x"}}}})["spec"]["instances"], "x");
  EXPECT_EQ(Defaulted(Json::parse(R"({"spec": {"instances": [1, "a"]}})"))["spec"]["instances"],
            Json::parse(R"([1, "a"])"));
  EXPECT_EQ(Defaulted({{"spec", {{"patroni", 7}}}})["spec"]["patroni"], 7);
  EXPECT_EQ(
      Defaulted(Json::parse(R"({"spec": {"patroni": {"dcs": "etcd"}}})"))["spec"]["patroni"]["dcs"],
      "etcd");
  const Json odd = Json::parse(R"({"spec": {"instances": [{"dataVolumeClaimSpec": 3}]}})");
  EXPECT_EQ(Defaulted(odd)["spec"]["instances"][0]["dataVolumeClaimSpec"], 3);
}

}  // namespace
}  // namespace quorum::api
