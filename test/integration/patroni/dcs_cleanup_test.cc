// Removing a Patroni cluster's keys from real etcd (issue 14.5): exactly the
// keys under "/<namespace>/<scope>/" go, a cluster whose scope shares a
// prefix and another namespace stay, and a second removal finds nothing.
#include "src/patroni/dcs_cleanup.h"

#include <gtest/gtest.h>

#include "src/patroni/role_sync.h"
#include "test/integration/etcd/etcd_harness.h"

namespace quorum::patroni {
namespace {

using etcd::testing::EtcdHarness;

TEST(DcsCleanupTest, RemovesExactlyTheClustersKeys) {
  EtcdHarness harness({.max_members = 1, .name_prefix = "cleanup"});
  ASSERT_TRUE(harness.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> c = etcd::Client::Create(harness.Config());
  ASSERT_TRUE(c.ok()) << c.status();
  etcd::Client& etcd = **c;
  ASSERT_TRUE(harness.StartNewCluster(etcd, 1).ok()) << harness.LogTail(0);
  // What Patroni writes for scope "pg" under the operator's default namespace.
  const std::string ns = "/quorum/db/";
  const std::vector<std::string> theirs = {"initialize",   "config",  "leader", "members/pg-0",
                                           "members/pg-1", "history", "status", "sync"};
  for (const std::string& k : theirs) ASSERT_TRUE(etcd.Put(ns + "pg/" + k, "x").ok()) << k;
  const std::vector<std::string> others = {"/quorum/db/pg2/initialize", "/quorum/db/pg2/leader",
                                           "/quorum/other/pg/initialize", "/quorum/db/pg"};
  for (const std::string& k : others) ASSERT_TRUE(etcd.Put(k, "keep").ok()) << k;

  EXPECT_EQ(ClusterKeyPrefix("/quorum/db/", "pg"), "/quorum/db/pg/");
  EXPECT_EQ(LeaderKey("/quorum/db/", "pg").rfind(ClusterKeyPrefix("/quorum/db/", "pg"), 0), 0u)
      << "the leader key lies under the prefix";
  absl::StatusOr<int64_t> removed = RemoveClusterKeys(etcd, "/quorum/db/", "pg");
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, static_cast<int64_t>(theirs.size()));
  for (const std::string& k : theirs) {
    absl::StatusOr<etcd::GetResponse> got = etcd.Get(ns + "pg/" + k);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->value, std::nullopt) << k;
  }
  for (const std::string& k : others) {
    absl::StatusOr<etcd::GetResponse> got = etcd.Get(k);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->value, "keep") << k;
  }
  removed = RemoveClusterKeys(etcd, "/quorum/db/", "pg");
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 0);
  EXPECT_TRUE(absl::IsInvalidArgument(RemoveClusterKeys(etcd, "/quorum/db/", "").status()));
}

}  // namespace
}  // namespace quorum::patroni
