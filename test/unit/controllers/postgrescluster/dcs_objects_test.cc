// Issue 36.5: which objects the kubernetes DCS keeps its state in, decided
// once per cluster (new clusters ConfigMaps, clusters that already ran
// Endpoints), the names of Patroni's objects of each kind, and the owner
// reference that lets Patroni's ConfigMaps go with the cluster.
#include "src/controllers/postgrescluster/dcs_objects.h"

#include <gtest/gtest.h>

#include "api/postgrescluster_types.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Cluster(const std::string& dcs_type, const std::string& recorded,
                        int64_t observed_generation) {
  PostgresCluster c;
  c.metadata.name = "hippo";
  c.metadata.ns = "db";
  c.metadata.uid = "9f8e-7d6c";
  c.spec.patroni.dcs.type = dcs_type;
  c.status.patroni.dcs_objects = recorded;
  c.status.observed_generation = observed_generation;
  return c;
}

const char kK8s[] = "kubernetes";

TEST(DcsObjectsTest, NewClustersGetConfigMapsAndClustersThatRanKeepWhatTheyRun) {
  struct Case {
    const char* name;
    std::string dcs_type, recorded;
    int64_t observed_generation;
    DcsObjectsEvidence evidence;
    std::string want;
  };
  const std::string endpoints_yaml = "kubernetes:\n  namespace: db\n  use_endpoints: true\n";
  const std::string configmaps_yaml = "kubernetes:\n  namespace: db\n  use_endpoints: false\n";
  const Case cases[] = {
      {"etcd records nothing", "etcd", "", 0, {}, ""},
      {"new cluster", kK8s, "", 0, {}, "ConfigMaps"},
      {"recorded Endpoints stays", kK8s, "Endpoints", 3, {}, "Endpoints"},
      {"recorded ConfigMaps stays", kK8s, "ConfigMaps", 3, {.has_statefulset = true}, "ConfigMaps"},
      {"an older operator's status", kK8s, "", 4, {}, "Endpoints"},
      {"an older operator's StatefulSet", kK8s, "", 0, {.has_statefulset = true}, "Endpoints"},
      {"members given Endpoints", kK8s, "", 0, {.patroni_yaml = endpoints_yaml}, "Endpoints"},
      {"members given ConfigMaps (status lost)",
       kK8s,
       "",
       5,
       {.patroni_yaml = configmaps_yaml, .has_statefulset = true},
       "ConfigMaps"},
      {"a config without a kubernetes section",
       kK8s,
       "",
       0,
       {.patroni_yaml = "etcd3:\n  hosts: []\n"},
       "ConfigMaps"},
      // The move (docs/operations.md): the user records ConfigMaps; it holds
      // only once no member runs what it was given.
      {"a move while members run waits",
       kK8s,
       "ConfigMaps",
       5,
       {.patroni_yaml = endpoints_yaml, .has_statefulset = true, .has_member_pods = true},
       "Endpoints"},
      {"a move once every member stopped",
       kK8s,
       "ConfigMaps",
       5,
       {.patroni_yaml = endpoints_yaml, .has_statefulset = true},
       "ConfigMaps"},
      {"members running what is recorded",
       kK8s,
       "ConfigMaps",
       5,
       {.patroni_yaml = configmaps_yaml, .has_statefulset = true, .has_member_pods = true},
       "ConfigMaps"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PlanDcsObjects(Cluster(c.dcs_type, c.recorded, c.observed_generation), c.evidence),
              c.want)
        << c.name;
  }
}

TEST(DcsObjectsTest, EachKindHasItsObjects) {
  const PostgresCluster cms = Cluster(kK8s, "ConfigMaps", 1);
  EXPECT_TRUE(UsesConfigMaps(cms));
  EXPECT_FALSE(UsesEndpoints(cms));
  EXPECT_EQ(LeaderObjectName(cms), "hippo-leader");
  EXPECT_EQ(PatroniObjectNames(cms), (std::vector<std::string>{"hippo-leader", "hippo-config",
                                                               "hippo-failover", "hippo-sync"}));

  const PostgresCluster eps = Cluster(kK8s, "Endpoints", 1);
  EXPECT_TRUE(UsesEndpoints(eps));
  EXPECT_EQ(LeaderObjectName(eps), "hippo") << "the primary Service's own Endpoints";
  EXPECT_EQ(PatroniObjectNames(eps),
            (std::vector<std::string>{"hippo", "hippo-config", "hippo-failover", "hippo-sync"}));
  EXPECT_TRUE(UsesEndpoints(Cluster(kK8s, "", 0))) << "nothing recorded: what every cluster had";

  const PostgresCluster etcd = Cluster("etcd", "", 1);
  EXPECT_FALSE(UsesConfigMaps(etcd));
  EXPECT_FALSE(UsesEndpoints(etcd));
  EXPECT_TRUE(PatroniObjectNames(etcd).empty());
}

TEST(DcsObjectsTest, PatroniConfigMapsGetTheClusterAsANonControllerOwner) {
  const PostgresCluster cluster = Cluster(kK8s, "ConfigMaps", 1);
  const Json other = {{"apiVersion", "v1"}, {"kind", "Thing"}, {"name", "x"}, {"uid", "other"}};
  const Json leader = {{"metadata", {{"name", "hippo-leader"}, {"ownerReferences", {other}}}}};
  std::optional<Json> patch = PatroniObjectOwnerPatch(cluster, leader);
  ASSERT_TRUE(patch.has_value());
  const Json& refs = (*patch)["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0], other) << "other owners stay";
  EXPECT_EQ(refs[1]["uid"], "9f8e-7d6c");
  EXPECT_EQ(refs[1]["kind"], "PostgresCluster");
  EXPECT_EQ(refs[1]["controller"], false) << "Patroni, not the operator, controls it";

  Json owned = leader;
  owned["metadata"]["ownerReferences"] = refs;
  EXPECT_EQ(PatroniObjectOwnerPatch(cluster, owned), std::nullopt) << "owned already";
  EXPECT_EQ(PatroniObjectOwnerPatch(Cluster(kK8s, "Endpoints", 1), leader), std::nullopt)
      << "Endpoints go with their Services";
}

}  // namespace
}  // namespace quorum::postgrescluster
