#include "src/kube/resource.h"

#include <gtest/gtest.h>

namespace quorum::kube {
namespace {

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
const GroupVersionResource kNamespaces{"", "v1", "namespaces"};

TEST(ResourcePathTest, BuildsCoreAndGroupPaths) {
  struct Case {
    GroupVersionResource gvr;
    std::string ns, name, sub, want;
  };
  const Case cases[] = {
      {kConfigMaps, "", "", "", "/api/v1/configmaps"},
      {kConfigMaps, "db", "", "", "/api/v1/namespaces/db/configmaps"},
      {kConfigMaps, "db", "cfg", "", "/api/v1/namespaces/db/configmaps/cfg"},
      {kStatefulSets, "db", "pg", "status", "/apis/apps/v1/namespaces/db/statefulsets/pg/status"},
      {kStatefulSets, "db", "pg", "scale", "/apis/apps/v1/namespaces/db/statefulsets/pg/scale"},
      {kNamespaces, "", "db", "", "/api/v1/namespaces/db"},
      {{"etcd.aenix.io", "v1alpha1", "etcdclusters"},
       "x",
       "e",
       "",
       "/apis/etcd.aenix.io/v1alpha1/namespaces/x/etcdclusters/e"},
      {kConfigMaps, "a b", "c/d", "", "/api/v1/namespaces/a%20b/configmaps/c%2Fd"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ResourcePath(c.gvr, c.ns, c.name, c.sub), c.want);
  }
}

TEST(ResourcePathTest, SubresourceNeedsAName) {
  EXPECT_EQ(ResourcePath(kConfigMaps, "db", "", "status"), "/api/v1/namespaces/db/configmaps");
}

TEST(ApiVersionTest, RoundTrips) {
  EXPECT_EQ(ApiVersion("", "v1"), "v1");
  EXPECT_EQ(ApiVersion("apps", "v1"), "apps/v1");
  EXPECT_EQ(SplitApiVersion("v1"), (std::pair<std::string, std::string>{"", "v1"}));
  EXPECT_EQ(SplitApiVersion("coordination.k8s.io/v1"),
            (std::pair<std::string, std::string>{"coordination.k8s.io", "v1"}));
  EXPECT_EQ(GroupVersionPath("", "v1"), "/api/v1");
  EXPECT_EQ(GroupVersionPath("apps", "v1"), "/apis/apps/v1");
}

TEST(ListQueryTest, ListCarriesPagingButNotWatchFlags) {
  ListOptions o{.label_selector = "app=etcd,tier in (a,b)",
                .resource_version = "42",
                .limit = 500,
                .continue_token = "abc==",
                .allow_watch_bookmarks = true};
  EXPECT_EQ(EncodeQuery(ListQuery(o, false)),
            "?labelSelector=app%3Detcd%2Ctier%20in%20%28a%2Cb%29&resourceVersion=42&limit=500"
            "&continue=abc%3D%3D");
}

TEST(ListQueryTest, WatchCarriesBookmarksAndTimeoutButNoPaging) {
  ListOptions o{.resource_version = "7",
                .limit = 10,
                .continue_token = "x",
                .timeout_seconds = 300,
                .allow_watch_bookmarks = true};
  EXPECT_EQ(EncodeQuery(ListQuery(o, true)),
            "?watch=1&resourceVersion=7&timeoutSeconds=300&allowWatchBookmarks=true");
}

TEST(EncodeQueryTest, EmptyIsEmpty) { EXPECT_EQ(EncodeQuery({}), ""); }

TEST(PercentEncodeTest, KeepsUnreservedOnly) {
  EXPECT_EQ(PercentEncode("aZ0-._~"), "aZ0-._~");
  EXPECT_EQ(PercentEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
}

}  // namespace
}  // namespace quorum::kube
