// runtime_bench: the controller runtime against a real API server.
//
//   runtime_bench [--kubeconfig PATH] [--objects N] [--samples N]
//
// Prints (1) informer memory for N ConfigMaps: heap bytes in use per cached
// object against the object's JSON size, and the process RSS; (2) reconcile
// latency: from the moment a change is sent to the API server to the start
// of the reconcile it causes, p50/p90/p99 over sequential changes.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "src/kube/config.h"
#include "src/runtime/cache.h"
#include "src/runtime/controller.h"

namespace quorum::runtime {
namespace {

const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};

size_t HeapInUse() { return mallinfo2().uordblks; }

std::string Rss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return line.substr(6);
  }
  return "?";
}

class TimingReconciler : public Reconciler {
 public:
  absl::StatusOr<Result> Reconcile(const Request& request) override {
    absl::MutexLock lock(&mu_);
    starts_[request.name].push_back(absl::Now());
    return Result{};
  }
  std::optional<absl::Time> After(const std::string& name, absl::Time t) {
    absl::MutexLock lock(&mu_);
    for (absl::Time s : starts_[name]) {
      if (s >= t) return s;
    }
    return std::nullopt;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::vector<absl::Time>> starts_ ABSL_GUARDED_BY(mu_);
};

int Main(int argc, char** argv) {
  std::string kubeconfig;
  int objects = 10000, samples = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kubeconfig") kubeconfig = argv[i + 1];
    if (flag == "--objects") (void)absl::SimpleAtoi(argv[i + 1], &objects);
    if (flag == "--samples") (void)absl::SimpleAtoi(argv[i + 1], &samples);
  }
  auto config =
      kubeconfig.empty() ? kube::LoadDefaultConfig() : kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "runtime_bench: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  config->qps = 0;
  auto client_or = kube::Client::Create(*config);
  if (!client_or.ok()) return 2;
  kube::Client& client = **client_or;
  const std::string ns = absl::StrCat("bench-runtime-", getpid());
  if (!client
           .Create(kNamespaces, "",
                   {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
           .ok()) {
    std::fprintf(stderr, "runtime_bench: cannot create namespace %s\n", ns.c_str());
    return 1;
  }
  std::printf("runtime_bench: %d ConfigMaps in %s\n", objects, ns.c_str());
  const absl::Time fill_start = absl::Now();
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < objects; i += 4) {
        (void)client.Create(kConfigMaps, ns,
                            {{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata",
                              {{"name", absl::StrCat("cm-", i)},
                               {"labels", {{"app", "bench"}, {"shard", std::to_string(i % 16)}}}}},
                             {"data",
                              {{"config.yaml", std::string(256, 'x')},
                               {"owner", "runtime-bench"},
                               {"index", std::to_string(i)}}}});
      }
    });
  }
  for (auto& w : writers) w.join();
  std::printf("created in %.1f s\n", absl::ToDoubleSeconds(absl::Now() - fill_start));

  // (1) Informer memory.
  malloc_trim(0);
  const size_t heap_before = HeapInUse();
  const std::string rss_before = Rss();
  auto informer =
      std::make_unique<SharedInformer>(client, kConfigMaps, InformerOptions{.namespaces = {ns}});
  const absl::Time sync_start = absl::Now();
  informer->Start();
  informer->WaitForSync(absl::Minutes(5));
  const double sync_s = absl::ToDoubleSeconds(absl::Now() - sync_start);
  malloc_trim(0);
  const size_t heap_after = HeapInUse();
  size_t json_bytes = 0, with_managed = 0;
  const auto cached = informer->store().List();
  for (const ObjectPtr& o : cached) json_bytes += o->dump().size();
  if (auto raw = client.Get(kConfigMaps, ns, "cm-0"); raw.ok()) with_managed = raw->dump().size();
  const double per_object = static_cast<double>(heap_after - heap_before) / cached.size();
  std::printf("informer: %zu objects synced in %.2f s (first list)\n", cached.size(), sync_s);
  std::printf(
      "informer memory: %.0f heap bytes per object; cached JSON %.0f bytes per object "
      "(%.0f with managedFields, which the cache drops); ratio %.2f\n",
      per_object, static_cast<double>(json_bytes) / cached.size(),
      static_cast<double>(with_managed),
      per_object / (static_cast<double>(json_bytes) / cached.size()));
  std::printf("process RSS: %s before the informer, %s after\n", rss_before.c_str(), Rss().c_str());
  // What the packed store costs on read: one Get unpacks one object.
  const absl::Time get_start = absl::Now();
  for (int i = 0; i < objects; ++i) (void)informer->store().Get(ns + "/cm-" + std::to_string(i));
  const double get_us = absl::ToDoubleMicroseconds(absl::Now() - get_start) / objects;
  const absl::Time list_start = absl::Now();
  const size_t listed = informer->store().ListNamespace(ns).size();
  std::printf("cache reads: Get %.2f us per object; ListNamespace of %zu objects %.1f ms\n", get_us,
              listed, absl::ToDoubleMilliseconds(absl::Now() - list_start));

  // (2) Reconcile latency: change -> reconcile start.
  TimingReconciler reconciler;
  Controller controller("bench", reconciler, {.workers = 2, .queue = {.qps = 0}});
  controller.Watch(*informer, EnqueueRequestForObject(), {ResourceVersionChangedPredicate()});
  controller.Start();
  absl::SleepFor(absl::Seconds(2));  // let the initial adds drain
  std::vector<absl::Duration> latencies;
  for (int i = 0; i < samples; ++i) {
    const std::string name = absl::StrCat("cm-", i % objects);
    const absl::Time sent = absl::Now();
    if (!client
             .Patch(kConfigMaps, ns, name, kube::PatchType::kMerge,
                    {{"metadata", {{"annotations", {{"bench/seq", std::to_string(i)}}}}}})
             .ok()) {
      continue;
    }
    std::optional<absl::Time> started;
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!(started = reconciler.After(name, sent)) && absl::Now() < deadline) {
      absl::SleepFor(absl::Microseconds(200));
    }
    if (started) latencies.push_back(*started - sent);
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return absl::ToDoubleMilliseconds(
        latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))]);
  };
  if (!latencies.empty()) {
    std::printf(
        "reconcile latency (change sent -> reconcile start), %zu samples: p50 %.2f ms  "
        "p90 %.2f ms  p99 %.2f ms\n",
        latencies.size(), pct(0.5), pct(0.9), pct(0.99));
  }
  controller.Stop();
  informer->Stop();
  (void)client.Delete(kNamespaces, "", ns, {.propagation = kube::PropagationPolicy::kBackground});
  return 0;
}

}  // namespace
}  // namespace quorum::runtime

int main(int argc, char** argv) { return quorum::runtime::Main(argc, argv); }
