// etcdcluster_bench: the EtcdCluster controller against a real API server
// (no kubelet needed: it measures the Kubernetes side).
//
//   etcdcluster_bench [--kubeconfig PATH] [--clusters N]
//
// Needs the CRD installed (quorum-operator crds | kubectl apply --server-side -f -).
// Prints the time from EtcdCluster creation to all its objects applied
// (p50/p90/p99 over N clusters created one after another) and the API writes
// made by reconciles of clusters whose spec did not change (must be 0).
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/controllers/etcdcluster/reconciler.h"
#include "src/kube/config.h"

namespace quorum::etcdcluster {
namespace {

using kube::Json;

double Writes(runtime::Manager& m) {
  auto& c = m.metrics().Counter("rest_client_requests_total", "", {});
  double n = 0;
  for (const char* verb : {"create", "update", "patch", "delete"}) {
    for (const char* code : {"200", "201", "409", "422", "404"}) n += c.Value({verb, code});
  }
  return n;
}

int Main(int argc, char** argv) {
  std::string kubeconfig;
  int clusters = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--kubeconfig") kubeconfig = argv[i + 1];
    if (std::string(argv[i]) == "--clusters") (void)absl::SimpleAtoi(argv[i + 1], &clusters);
  }
  auto config =
      kubeconfig.empty() ? kube::LoadDefaultConfig() : kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etcdcluster_bench: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  config->qps = 0;
  auto test_client = kube::Client::Create(*config);
  auto op_client = kube::Client::Create(*config);
  if (!test_client.ok() || !op_client.ok()) return 2;
  kube::Client& client = **test_client;
  const std::string ns = absl::StrCat("bench-etcd-", getpid());
  if (!client
           .Create({"", "v1", "namespaces"}, "",
                   {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
           .ok()) {
    return 1;
  }
  runtime::Manager manager(
      **op_client,
      {.namespaces = {ns}, .metrics_bind_address = "0", .health_probe_bind_address = "0"});
  EtcdClusterReconciler reconciler(**op_client, manager.cache(), manager.recorder());
  SetupEtcdClusterController(manager, reconciler, 4);
  Cancellation cancel;
  std::thread runner([&] { (void)manager.Run(cancel); });
  while (!manager.IsLeader()) absl::SleepFor(absl::Milliseconds(20));

  std::vector<absl::Duration> latencies;
  for (int i = 0; i < clusters; ++i) {
    const std::string name = absl::StrCat("e", i);
    const absl::Time start = absl::Now();
    Json cluster = {
        {"apiVersion", "etcd.aenix.io/v1alpha1"},
        {"kind", "EtcdCluster"},
        {"metadata", {{"name", name}}},
        {"spec", {{"replicas", 3}, {"podDisruptionBudgetTemplate", {{"spec", Json::object()}}}}}};
    if (!client.Create(kEtcdClusters, ns, cluster).ok()) continue;
    // All objects applied: the last one written is the PDB; status follows.
    while (manager.cache().Get(kPdbs, ns, name) == nullptr ||
           manager.cache().Get(kStatefulSets, ns, name) == nullptr) {
      absl::SleepFor(absl::Microseconds(500));
      if (absl::Now() - start > absl::Seconds(30)) break;
    }
    latencies.push_back(absl::Now() - start);
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return absl::ToDoubleMilliseconds(
        latencies[std::min(latencies.size() - 1, size_t(p * latencies.size()))]);
  };
  if (!latencies.empty()) {
    std::printf(
        "EtcdCluster created -> all objects applied, %zu clusters: p50 %.1f ms  p90 %.1f ms  "
        "p99 %.1f ms\n",
        latencies.size(), pct(0.5), pct(0.9), pct(0.99));
  }
  absl::SleepFor(absl::Seconds(3));  // let status writes and object events settle
  auto& total = manager.metrics().Counter("controller_runtime_reconcile_total", "", {});
  const double before_writes = Writes(manager);
  // A no-op reconcile ends "success" (waiting for pods: the watches bring the
  // next change) or "requeue_after" (a converged cluster's health refresh).
  auto done = [&] {
    return total.Value({"etcdcluster", "requeue_after"}) + total.Value({"etcdcluster", "success"});
  };
  const double before = done();
  for (int i = 0; i < clusters; ++i) {
    (void)client.Patch(kEtcdClusters, ns, absl::StrCat("e", i), kube::PatchType::kMerge,
                       {{"metadata", {{"annotations", {{"bench/touch", "1"}}}}}});
  }
  absl::SleepFor(absl::Seconds(3));
  const double reconciles = done() - before;
  std::printf("no-op reconciles: %.0f, API writes during them: %.0f (%.2f per reconcile)\n",
              reconciles, Writes(manager) - before_writes,
              reconciles > 0 ? (Writes(manager) - before_writes) / reconciles : 0.0);
  cancel.Cancel();
  runner.join();
  (void)client.Delete({"", "v1", "namespaces"}, "", ns,
                      {.propagation = kube::PropagationPolicy::kBackground});
  return 0;
}

}  // namespace
}  // namespace quorum::etcdcluster

int main(int argc, char** argv) { return quorum::etcdcluster::Main(argc, argv); }
