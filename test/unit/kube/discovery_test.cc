#include "src/kube/discovery.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::kube {
namespace {

TEST(ParseApiResourceListTest, ReadsResourcesAndAttachesSubresources) {
  const Json doc = Json::parse(R"({
    "kind": "APIResourceList", "groupVersion": "apps/v1",
    "resources": [
      {"name": "statefulsets", "kind": "StatefulSet", "namespaced": true,
       "verbs": ["create", "get", "list", "watch"]},
      {"name": "statefulsets/status", "kind": "StatefulSet", "namespaced": true},
      {"name": "statefulsets/scale", "kind": "Scale", "namespaced": true}
    ]})");
  auto list = ParseApiResourceList(doc);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  const ApiResource& r = list->front();
  EXPECT_EQ(r.gvr, (GroupVersionResource{"apps", "v1", "statefulsets"}));
  EXPECT_EQ(r.kind, "StatefulSet");
  EXPECT_TRUE(r.namespaced);
  EXPECT_EQ(r.verbs.size(), 4u);
  EXPECT_EQ(r.subresources, (std::vector<std::string>{"status", "scale"}));
}

TEST(ParseApiResourceListTest, CoreGroupAndClusterScope) {
  const Json doc = Json::parse(R"({"groupVersion": "v1",
    "resources": [{"name": "namespaces", "kind": "Namespace", "namespaced": false}]})");
  auto list = ParseApiResourceList(doc);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->front().gvr, (GroupVersionResource{"", "v1", "namespaces"}));
  EXPECT_FALSE(list->front().namespaced);
}

TEST(ParseApiResourceListTest, MalformedDocumentsAreErrors) {
  for (const char* text : {"[]", "{}", R"({"groupVersion": "v1"})",
                           R"({"groupVersion": "v1", "resources": [{"kind": "X"}]})",
                           R"({"groupVersion": 3, "resources": []})"}) {
    auto list = ParseApiResourceList(Json::parse(text));
    EXPECT_FALSE(list.ok()) << text;
  }
}

}  // namespace
}  // namespace quorum::kube
