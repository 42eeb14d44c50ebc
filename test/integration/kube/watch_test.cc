// Watches against the real kube-apiserver: event order, cancellation, and a
// real 410 Gone forced by compacting the control plane's etcd.
#include "src/kube/watch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "test/integration/testenv.h"

namespace quorum::kube {
namespace {

using testenv::Eventually;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
// The test control plane runs without a watch cache for podtemplates
// (hack/controlplane.sh), so their watches read etcd directly and an etcd
// compaction expires old resourceVersions at once.
const GroupVersionResource kPodTemplates{"", "v1", "podtemplates"};

class WatchTest : public testenv::IntegrationTest {};

struct Seen {
  absl::Mutex mu;
  std::vector<std::pair<WatchEventType, std::string>> events ABSL_GUARDED_BY(mu);

  void Add(const WatchEvent& ev) {
    absl::MutexLock lock(&mu);
    events.emplace_back(ev.type, ev.object["metadata"]["name"].get<std::string>());
  }
  size_t size() {
    absl::MutexLock lock(&mu);
    return events.size();
  }
};

TEST_F(WatchTest, SeesAddedModifiedDeletedInOrderAndStopsOnCancel) {
  auto list = client().List(kConfigMaps, ns());
  ASSERT_TRUE(list.ok()) << list.status();
  Watcher watcher(client(), kConfigMaps, ns(),
                  {.list = {.resource_version = (*list)["metadata"]["resourceVersion"]}});
  Cancellation cancel;
  Seen seen;
  absl::Status result;
  std::thread t([&] {
    result = watcher.Run(
        [&](const WatchEvent& ev) {
          // Only the test's own ConfigMap: the control plane publishes
          // kube-root-ca.crt into every new namespace, maybe during the watch.
          if (ev.object.value("metadata", Json::object()).value("name", "") == "watched") {
            seen.Add(ev);
          }
          return true;
        },
        cancel);
  });

  ASSERT_TRUE(client()
                  .Create(kConfigMaps, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", "watched"}}},
                           {"data", {{"v", "1"}}}})
                  .ok());
  ASSERT_TRUE(client()
                  .Patch(kConfigMaps, ns(), "watched", PatchType::kMerge, {{"data", {{"v", "2"}}}})
                  .ok());
  ASSERT_TRUE(client().Delete(kConfigMaps, ns(), "watched").ok());
  ASSERT_TRUE(Eventually([&] { return seen.size() >= 3; }, absl::Seconds(30)));

  const absl::Time cancelled_at = absl::Now();
  cancel.Cancel();
  t.join();
  EXPECT_LT(absl::Now() - cancelled_at, absl::Seconds(2)) << "cancellation must be prompt";
  EXPECT_TRUE(absl::IsCancelled(result)) << result;
  absl::MutexLock lock(&seen.mu);
  ASSERT_EQ(seen.events.size(), 3u);
  EXPECT_EQ(seen.events[0], std::make_pair(WatchEventType::kAdded, std::string("watched")));
  EXPECT_EQ(seen.events[1].first, WatchEventType::kModified);
  EXPECT_EQ(seen.events[2].first, WatchEventType::kDeleted);
  EXPECT_FALSE(watcher.resource_version().empty());
}

TEST_F(WatchTest, HandlerReturningFalseEndsTheWatch) {
  ASSERT_TRUE(
      client()
          .Create(kConfigMaps, ns(),
                  {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}})
          .ok());
  Watcher watcher(client(), kConfigMaps, ns(), {.list = {.resource_version = "0"}});
  Cancellation cancel;
  int calls = 0;
  absl::Status s = watcher.Run([&](const WatchEvent&) { return ++calls < 1; }, cancel);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(calls, 1);
}

// Compacts the control plane's etcd up to `revision` through its v3 JSON API.
absl::Status CompactEtcd(const std::string& endpoint, int64_t revision) {
  RestConfig etcd;
  etcd.server = endpoint;
  auto transport = Transport::Create(etcd, RealClock());
  if (!transport.ok()) return transport.status();
  auto resp =
      (*transport)
          ->Do({.method = "POST",
                .path = "/v3/kv/compaction",
                .body = Json{{"revision", std::to_string(revision)}, {"physical", true}}.dump()});
  if (!resp.ok()) return resp.status();
  if (resp->code != 200) {
    return absl::InternalError("etcd compaction failed: " + resp->body);
  }
  return absl::OkStatus();
}

TEST_F(WatchTest, ExpiredResourceVersionTellsTheCallerToRelist) {
  ASSERT_FALSE(control_plane().etcd_endpoint.empty()) << "controlplane env lacks the etcd URL";
  const Json tmpl = {
      {"apiVersion", "v1"},
      {"kind", "PodTemplate"},
      {"metadata", {{"name", "old"}, {"labels", {{"n", "0"}}}}},
      {"template",
       {{"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "example.com/x:1"}}})}}}}}};
  auto created = client().Create(kPodTemplates, ns(), tmpl);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string old_rv = (*created)["metadata"]["resourceVersion"];
  std::string latest;
  for (int i = 1; i <= 3; ++i) {
    auto p = client().Patch(kPodTemplates, ns(), "old", PatchType::kMerge,
                            {{"metadata", {{"labels", {{"n", std::to_string(i)}}}}}});
    ASSERT_TRUE(p.ok()) << p.status();
    latest = (*p)["metadata"]["resourceVersion"];
  }
  ASSERT_TRUE(CompactEtcd(control_plane().etcd_endpoint, std::stoll(latest)).ok());

  Watcher watcher(client(), kPodTemplates, ns(), {.list = {.resource_version = old_rv}});
  Cancellation cancel;
  int delivered = 0;
  absl::Status s = watcher.Run(
      [&](const WatchEvent&) {
        ++delivered;
        return true;
      },
      cancel);
  EXPECT_TRUE(IsGone(s)) << s;
  EXPECT_EQ(delivered, 0);

  // The caller relists and resumes from the fresh resourceVersion.
  auto list = client().List(kPodTemplates, ns());
  ASSERT_TRUE(list.ok());
  watcher.set_resource_version((*list)["metadata"]["resourceVersion"]);
  std::thread changer([&] {
    // Order, not outcome: the change lands after the watch has (likely) started;
    // either way the watch must deliver it.
    absl::SleepFor(absl::Milliseconds(300));
    (void)client().Delete(kPodTemplates, ns(), "old");
  });
  s = watcher.Run([&](const WatchEvent& ev) { return ev.type != WatchEventType::kDeleted; },
                  cancel);
  changer.join();
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(WatchTest, CancellingAnIdleWatchIsPrompt) {
  Watcher watcher(client(), kConfigMaps, ns(), {});
  Cancellation cancel;
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(500));  // order: the watch is idle when cancelled
    cancel.Cancel();
  });
  const absl::Time start = absl::Now();
  absl::Status s = watcher.Run([](const WatchEvent&) { return true; }, cancel);
  canceller.join();
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

}  // namespace
}  // namespace quorum::kube
