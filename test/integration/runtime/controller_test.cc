// Informers, the cache and controllers against the real API server.
#include "src/runtime/controller.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "src/kube/errors.h"
#include "src/runtime/cache.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::runtime {
namespace {

using testenv::Eventually;

const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};

Json ConfigMap(const std::string& name, Json data, Json annotations = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"annotations", std::move(annotations)}}},
          {"data", std::move(data)}};
}

// Counts reconciles per key.
class CountingReconciler : public Reconciler {
 public:
  absl::StatusOr<Result> Reconcile(const Request& request) override {
    absl::MutexLock lock(&mu_);
    ++counts_[request.Key()];
    return Result{};
  }
  int Count(const std::string& key) {
    absl::MutexLock lock(&mu_);
    return counts_[key];
  }
  int Total(const std::string& prefix) {
    absl::MutexLock lock(&mu_);
    int n = 0;
    for (const auto& [k, v] : counts_) n += k.rfind(prefix, 0) == 0 ? v : 0;
    return n;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, int> counts_ ABSL_GUARDED_BY(mu_);
};

class ControllerTest : public testenv::IntegrationTest {
 protected:
  std::string Key(const std::string& name) { return ns() + "/" + name; }
};

TEST_F(ControllerTest, ReconcilesEachObjectOnceAtStartAgainOnChangeAndNeverWhenIdle) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("cm-" + std::to_string(i), {})).ok());
  }
  Registry metrics;
  Cache cache(client(), {.namespaces = {ns()}, .metrics = &metrics});
  CountingReconciler reconciler;
  Controller controller("configmaps", reconciler, {.workers = 2, .metrics = &metrics});
  controller.Watch(cache.Informer(kConfigMaps), EnqueueRequestForObject(),
                   {ResourceVersionChangedPredicate()});
  cache.Start();
  ASSERT_TRUE(cache.WaitForSync(absl::Seconds(30)));
  controller.Start();

  const std::string prefix = Key("cm-");
  ASSERT_TRUE(Eventually([&] { return reconciler.Total(prefix) >= 5; }, absl::Seconds(30)))
      << "reconciled " << reconciler.Total(prefix) << " of 5; cached "
      << cache.List(kConfigMaps, ns()).size() << "; queue " << controller.queue().Len() << "\n"
      << metrics.Render();
  // Nothing changes: nothing is reconciled. (Absence can only be observed by waiting.)
  absl::SleepFor(absl::Seconds(2));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(reconciler.Count(Key("cm-" + std::to_string(i))), 1);

  ASSERT_TRUE(client()
                  .Patch(kConfigMaps, ns(), "cm-2", kube::PatchType::kMerge,
                         {{"data", {{"changed", "yes"}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return reconciler.Count(Key("cm-2")) == 2; }, absl::Seconds(30)))
      << "cm-2 reconciled " << reconciler.Count(Key("cm-2")) << " times; cached rv "
      << (*cache.Get(kConfigMaps, ns(), "cm-2"))["metadata"]["resourceVersion"] << "; queue "
      << controller.queue().Len();
  ASSERT_TRUE(client().Delete(kConfigMaps, ns(), "cm-4").ok());
  ASSERT_TRUE(Eventually([&] { return reconciler.Count(Key("cm-4")) == 2; }, absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return controller.queue().Idle(); }, absl::Seconds(30)));
  EXPECT_EQ(reconciler.Total(prefix), 7) << "one per object at start, one per change";
  EXPECT_EQ(metrics.Counter("controller_runtime_reconcile_total", "", {})
                .Value({"configmaps", "success"}),
            reconciler.Total(""));
  controller.Stop();
  cache.Stop();
}

TEST_F(ControllerTest, IndexMapsASecretChangeToTheObjectsThatReferenceIt) {
  ASSERT_TRUE(client()
                  .Create(kSecrets, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"metadata", {{"name", "creds"}}},
                           {"stringData", {{"password", "x"}}}})
                  .ok());
  ASSERT_TRUE(
      client()
          .Create(kConfigMaps, ns(), ConfigMap("user", {}, {{"quorum.dev/secret", "creds"}}))
          .ok());
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("bystander", {})).ok());

  Cache cache(client(), {.namespaces = {ns()}});
  SharedInformer& configmaps = cache.Informer(kConfigMaps);
  configmaps.AddIndex("secret", [](const Json& cm) -> std::vector<std::string> {
    const Json& ann = cm["metadata"].value("annotations", Json::object());
    if (!ann.contains("quorum.dev/secret")) return {};
    return {cm["metadata"]["namespace"].get<std::string>() + "/" +
            ann["quorum.dev/secret"].get<std::string>()};
  });
  CountingReconciler reconciler;
  Controller controller("referrers", reconciler, {});
  controller.Watch(configmaps, EnqueueRequestForObject(), {ResourceVersionChangedPredicate()});
  controller.Watch(cache.Informer(kSecrets),
                   EnqueueRequestsFromIndex(configmaps.store(), "secret",
                                            [](const Json& s) {
                                              return std::vector<std::string>{
                                                  s["metadata"]["namespace"].get<std::string>() +
                                                  "/" + s["metadata"]["name"].get<std::string>()};
                                            }),
                   {ResourceVersionChangedPredicate()});
  cache.Start();
  ASSERT_TRUE(cache.WaitForSync(absl::Seconds(30)));
  controller.Start();
  // Start: the ConfigMap itself, plus once through the Secret's add.
  ASSERT_TRUE(Eventually([&] { return reconciler.Count(Key("user")) >= 1; }, absl::Seconds(30)));
  ASSERT_TRUE(
      Eventually([&] { return reconciler.Count(Key("bystander")) == 1; }, absl::Seconds(30)));
  const int before = reconciler.Count(Key("user"));
  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "creds", kube::PatchType::kMerge,
                         {{"stringData", {{"password", "rotated"}}}})
                  .ok());
  ASSERT_TRUE(
      Eventually([&] { return reconciler.Count(Key("user")) == before + 1; }, absl::Seconds(30)));
  EXPECT_EQ(reconciler.Count(Key("bystander")), 1);
  controller.Stop();
  cache.Stop();
}

TEST_F(ControllerTest, CacheReadsNeverReachTheApiServer) {
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("read-me", {{"k", "v"}})).ok());
  Cache cache(client(), {.namespaces = {ns()}});
  cache.Informer(kConfigMaps);
  cache.Start();
  ASSERT_TRUE(cache.WaitForSync(absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return cache.Get(kConfigMaps, ns(), "read-me") != nullptr; },
                         absl::Seconds(10)));
  const int64_t before = client().transport().stats().requests;
  for (int i = 0; i < 1000; ++i) {
    ObjectPtr cm = cache.Get(kConfigMaps, ns(), "read-me");
    ASSERT_NE(cm, nullptr);
    ASSERT_EQ((*cm)["data"]["k"], "v");
    ASSERT_FALSE(cache.List(kConfigMaps, ns()).empty());
  }
  EXPECT_EQ(client().transport().stats().requests, before);
  EXPECT_FALSE((*cache.Get(kConfigMaps, ns(), "read-me"))["metadata"].contains("managedFields"))
      << "managedFields are stripped to keep the cache small";
  cache.Stop();
}

// Compares the informer's store with a fresh list from the server.
bool StoreMatchesServer(kube::Client& client, const SharedInformer& informer,
                        const std::string& ns) {
  auto list = client.List(kConfigMaps, ns);
  if (!list.ok()) return false;
  std::map<std::string, std::string> server, cached;
  for (const Json& cm : (*list)["items"]) {
    server[cm["metadata"]["name"]] = cm["metadata"]["resourceVersion"];
  }
  for (const ObjectPtr& cm : informer.store().ListNamespace(ns)) {
    cached[(*cm)["metadata"]["name"]] = (*cm)["metadata"]["resourceVersion"];
  }
  if (server != cached) {
    std::string diff;
    for (const auto& [k, v] : server) diff += " server:" + k + "@" + v;
    for (const auto& [k, v] : cached) diff += " cached:" + k + "@" + v;
    static std::string last;
    if (diff != last) std::printf("cache differs:%s\n", diff.c_str());
    last = diff;
  }
  return server == cached;
}

TEST_F(ControllerTest, InformerSurvivesAnApiServerRestartAndKeepsTheCacheCorrect) {
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("before", {{"v", "1"}})).ok());
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("doomed", {})).ok());
  SharedInformer informer(client(), kConfigMaps,
                          {.namespaces = {ns()},
                           .initial_backoff = absl::Milliseconds(200),
                           .max_backoff = absl::Seconds(2)});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(30)));
  ASSERT_TRUE(
      Eventually([&] { return StoreMatchesServer(client(), informer, ns()); }, absl::Seconds(10)));

  const std::string cmd = std::string(QUORUM_SOURCE_DIR) +
                          "/hack/controlplane.sh restart-apiserver " + control_plane().dir +
                          " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  ASSERT_TRUE(Eventually([&] { return client().Get(kConfigMaps, ns(), "before").ok(); },
                         absl::Seconds(60)));
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), ConfigMap("after", {})).ok());
  ASSERT_TRUE(
      client()
          .Patch(kConfigMaps, ns(), "before", kube::PatchType::kMerge, {{"data", {{"v", "2"}}}})
          .ok());
  ASSERT_TRUE(client().Delete(kConfigMaps, ns(), "doomed").ok());
  EXPECT_TRUE(
      Eventually([&] { return StoreMatchesServer(client(), informer, ns()); }, absl::Seconds(60)))
      << "the cache must converge to the server's state after the restart";
  EXPECT_EQ(informer.store().Get(ns() + "/doomed"), nullptr);
  ASSERT_NE(informer.store().Get(ns() + "/before"), nullptr);
  EXPECT_EQ((*informer.store().Get(ns() + "/before"))["data"]["v"], "2");
  informer.Stop();
}

}  // namespace
}  // namespace quorum::runtime
