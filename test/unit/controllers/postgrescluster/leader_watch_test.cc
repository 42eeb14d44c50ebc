#include "src/controllers/postgrescluster/leader_watch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"

namespace quorum::postgrescluster {
namespace {

using nlohmann::json;

PostgresCluster Cluster(const std::string& name, json etcd) {
  json c = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", name}, {"namespace", "db"}}},
            {"spec",
             {{"postgresVersion", 15},
              {"instances",
               {{{"name", "main"},
                 {"replicas", 1},
                 {"dataVolumeClaimSpec",
                  {{"accessModes", {"ReadWriteOnce"}},
                   {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
              {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", std::move(etcd)}}}}}}}};
  absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : PostgresCluster{};
}

DcsResolution Resolve(const PostgresCluster& cluster) {
  return ResolveDcs(cluster, [](const std::string&, const std::string&) { return nullptr; });
}

const SecretValue kNoSecrets = [](const std::string&, const char*) { return std::string(); };

TEST(LeaderWatchTargetTest, FollowsPatronisLeaderKeyUnderTheKeyNamespacePrefix) {
  const PostgresCluster hippo = Cluster("hippo", {{"endpoints", {"http://etcd-0:2379"}}});
  std::optional<LeaderWatchTarget> t = LeaderWatchTargetFor(hippo, Resolve(hippo), kNoSecrets);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->leader_key, "/quorum/db/hippo/leader");
  EXPECT_EQ(t->prefix, "/quorum/db/");
  EXPECT_EQ(t->config.endpoints, std::vector<std::string>{"http://etcd-0:2379"});

  // A user's key namespace, with or without slashes, as Patroni builds it.
  for (const char* ns : {"service", "/service/", "//service"}) {
    const PostgresCluster c =
        Cluster("hippo", {{"endpoints", {"http://etcd-0:2379"}}, {"namespace", ns}});
    std::optional<LeaderWatchTarget> u = LeaderWatchTargetFor(c, Resolve(c), kNoSecrets);
    ASSERT_TRUE(u.has_value()) << ns;
    EXPECT_EQ(u->leader_key, "/service/hippo/leader") << ns;
    EXPECT_EQ(u->prefix, "/service/") << ns;
  }
}

TEST(LeaderWatchTargetTest, ClustersOnTheSameDcsShareAGroupAndOthersDoNot) {
  const json etcd = {{"endpoints", {"http://etcd-0:2379"}}};
  const PostgresCluster a = Cluster("a", etcd), b = Cluster("b", etcd);
  json elsewhere = etcd;
  elsewhere["endpoints"] = {"http://etcd-1:2379"};
  const PostgresCluster c = Cluster("c", elsewhere);
  auto target = [](const PostgresCluster& x) {
    return *LeaderWatchTargetFor(x, Resolve(x), kNoSecrets);
  };
  EXPECT_EQ(target(a).group(), target(b).group());
  EXPECT_NE(target(a).leader_key, target(b).leader_key);
  EXPECT_NE(target(a).group(), target(c).group());
  EXPECT_FALSE(target(a) == target(b));
  EXPECT_TRUE(target(a) == target(a));
}

TEST(LeaderWatchTargetTest, NothingToFollowWithoutAReadyEtcdDcs) {
  json k8s = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
              {"kind", "PostgresCluster"},
              {"metadata", {{"name", "k"}, {"namespace", "db"}}},
              {"spec",
               {{"postgresVersion", 15},
                {"instances",
                 {{{"name", "main"},
                   {"dataVolumeClaimSpec",
                    {{"accessModes", {"ReadWriteOnce"}},
                     {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}};
  absl::StatusOr<PostgresCluster> kube_dcs = api::ParsePostgresCluster(k8s);
  ASSERT_TRUE(kube_dcs.ok()) << kube_dcs.status();
  EXPECT_FALSE(LeaderWatchTargetFor(*kube_dcs, Resolve(*kube_dcs), kNoSecrets).has_value());
  const PostgresCluster hippo = Cluster("hippo", {{"endpoints", {"http://etcd-0:2379"}}});
  DcsResolution not_ready = Resolve(hippo);
  not_ready.ready = false;
  EXPECT_FALSE(LeaderWatchTargetFor(hippo, not_ready, kNoSecrets).has_value());
}

TEST(LeaderWatchSourceTest, FollowingNothingStartsNothing) {
  LeaderWatchSource source([](const runtime::Request&) {});
  source.Follow({"db", "hippo"}, std::nullopt);
  EXPECT_EQ(source.streams(), 0u);
  EXPECT_EQ(source.followers(), 0u);
}

}  // namespace
}  // namespace quorum::postgrescluster
