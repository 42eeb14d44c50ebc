// Scoped caches against the real API server: a label-selected type holds only
// the labelled objects (unrelated ones cost nothing), its transform runs on
// what it holds, a read-through type answers Get for a named object outside
// the selector without caching it, and the instance index finds one
// cluster's objects.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/runtime/cache.h"
#include "src/runtime/transforms.h"
#include "test/integration/testenv.h"

namespace quorum::runtime {
namespace {

using testenv::Eventually;

const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
constexpr char kOwned[] = "app.kubernetes.io/managed-by=quorum-operator";

Json Object(const std::string& kind, const std::string& name, bool owned,
            const std::string& instance = "") {
  Json o = {{"apiVersion", "v1"}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (owned) o["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "quorum-operator";
  if (!instance.empty()) o["metadata"]["labels"][kInstanceLabel] = instance;
  o["data"] = kind == "Secret" ? Json{{"k", "dg=="}} : Json{{"k", "v"}};
  return o;
}

class CacheScopeTest : public testenv::IntegrationTest {};

TEST_F(CacheScopeTest, SelectorTransformReadThroughAndInstanceIndex) {
  for (const auto& [kind, gvr] : {std::pair{"ConfigMap", kConfigMaps}, {"Secret", kSecrets}}) {
    ASSERT_TRUE(client().Create(gvr, ns(), Object(kind, "ours-a", true, "a")).ok());
    ASSERT_TRUE(client().Create(gvr, ns(), Object(kind, "ours-b", true, "b")).ok());
    ASSERT_TRUE(client().Create(gvr, ns(), Object(kind, "users", false)).ok());
  }
  CacheOptions options{.namespaces = {ns()}};
  options.by_resource[ResourceKey(kConfigMaps)] = {.label_selector = kOwned,
                                                   .transform = [](Json& o) { o.erase("data"); }};
  options.by_resource[ResourceKey(kSecrets)] = {.label_selector = kOwned, .read_through = true};
  Cache cache(client(), options);
  cache.Informer(kConfigMaps);
  cache.Informer(kSecrets);
  cache.Start();
  ASSERT_TRUE(cache.WaitForSync(absl::Seconds(30)));

  EXPECT_EQ(cache.List(kConfigMaps, ns()).size(), 2u) << "only the labelled ConfigMaps";
  EXPECT_EQ(cache.Get(kConfigMaps, ns(), "users"), nullptr) << "not read through";
  ObjectPtr ours = cache.Get(kConfigMaps, ns(), "ours-a");
  ASSERT_NE(ours, nullptr);
  EXPECT_FALSE(ours->contains("data")) << "the transform ran";
  EXPECT_FALSE((*ours)["metadata"].contains("managedFields"));

  EXPECT_EQ(cache.List(kSecrets, ns()).size(), 2u) << "only the owned Secrets are listed";
  ObjectPtr users = cache.Get(kSecrets, ns(), "users");
  ASSERT_NE(users, nullptr) << "a named Secret outside the selector is read through";
  EXPECT_EQ((*users)["data"]["k"], "dg==");
  EXPECT_EQ(cache.List(kSecrets, ns()).size(), 2u) << "and not cached";
  EXPECT_EQ(cache.Get(kSecrets, ns(), "absent"), nullptr);

  std::vector<ObjectPtr> a = cache.ByInstance(kSecrets, ns(), "a");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ((*a[0])["metadata"]["name"], "ours-a");

  // A label added later brings an object into scope; removing it drops it.
  ASSERT_TRUE(client()
                  .Patch(kConfigMaps, ns(), "users", kube::PatchType::kMerge,
                         {{"metadata",
                           {{"labels", {{"app.kubernetes.io/managed-by", "quorum-operator"}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return cache.Get(kConfigMaps, ns(), "users") != nullptr; },
                         absl::Seconds(10)));
  ASSERT_TRUE(client()
                  .Patch(kConfigMaps, ns(), "users", kube::PatchType::kMerge,
                         {{"metadata", {{"labels", {{"app.kubernetes.io/managed-by", nullptr}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return cache.Get(kConfigMaps, ns(), "users") == nullptr; },
                         absl::Seconds(10)));
  cache.Stop();
}

}  // namespace
}  // namespace quorum::runtime
