// kube_client_bench: throughput and latency of the Kubernetes client against
// a real API server (the dev or test control plane).
//
//   kube_client_bench [--kubeconfig PATH] [--requests N] [--threads T]
//
// Prints, for GET, server-side apply that changes the object, and no-op
// server-side apply: requests/second and p50/p90/p99 latency; then the
// connections opened and the client's memory (RSS and peak RSS).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"

namespace quorum::kube {
namespace {

const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const GroupVersionResource kNamespaces{"", "v1", "namespaces"};

std::string ProcStatus(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::string v = line.substr(key.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "?";
}

struct Result {
  std::vector<absl::Duration> latencies;
  absl::Duration wall;
  int errors = 0;
};

double Ms(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

void Print(const std::string& name, Result r) {
  std::sort(r.latencies.begin(), r.latencies.end());
  auto pct = [&](double p) {
    if (r.latencies.empty()) return absl::ZeroDuration();
    return r
        .latencies[std::min(r.latencies.size() - 1, static_cast<size_t>(p * r.latencies.size()))];
  };
  std::printf("%-22s %7zu req %9.1f req/s  p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms  errors %d\n",
              name.c_str(), r.latencies.size(), r.latencies.size() / absl::ToDoubleSeconds(r.wall),
              Ms(pct(0.50)), Ms(pct(0.90)), Ms(pct(0.99)), r.errors);
}

template <typename Fn>
Result Run(int requests, int threads, Fn fn) {
  Result total;
  std::vector<Result> parts(threads);
  const absl::Time start = absl::Now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = t; i < requests; i += threads) {
        const absl::Time s = absl::Now();
        const bool ok = fn(t, i);
        parts[t].latencies.push_back(absl::Now() - s);
        if (!ok) ++parts[t].errors;
      }
    });
  }
  for (auto& w : workers) w.join();
  total.wall = absl::Now() - start;
  for (auto& p : parts) {
    total.latencies.insert(total.latencies.end(), p.latencies.begin(), p.latencies.end());
    total.errors += p.errors;
  }
  return total;
}

int Main(int argc, char** argv) {
  std::string kubeconfig;
  int requests = 2000, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kubeconfig")
      kubeconfig = argv[i + 1];
    else if (flag == "--requests")
      (void)absl::SimpleAtoi(argv[i + 1], &requests);
    else if (flag == "--threads")
      (void)absl::SimpleAtoi(argv[i + 1], &threads);
  }
  absl::StatusOr<RestConfig> config =
      kubeconfig.empty() ? LoadDefaultConfig() : LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "kube_client_bench: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  config->qps = 0;  // measure the server and the client, not the limiter
  auto client = Client::Create(*config);
  if (!client.ok()) {
    std::fprintf(stderr, "kube_client_bench: %s\n", std::string(client.status().message()).c_str());
    return 2;
  }
  Client& c = **client;
  const std::string ns = absl::StrCat("bench-", getpid());
  auto made = c.Create(kNamespaces, "",
                       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  if (!made.ok()) {
    std::fprintf(stderr, "kube_client_bench: %s\n", std::string(made.status().message()).c_str());
    return 1;
  }
  std::printf("kube_client_bench: %d requests per phase, %d thread(s), server %s\n", requests,
              threads, config->server.c_str());
  std::printf("memory before: RSS %s\n", ProcStatus("VmRSS").c_str());
  auto object = [&](int t, const std::string& value) {
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"name", absl::StrCat("bench-", t)}}},
                {"data", {{"value", value}}}};
  };
  for (int t = 0; t < threads; ++t) (void)c.Apply(kConfigMaps, ns, object(t, "0"));

  Print("GET", Run(requests, threads, [&](int t, int) {
          return c.Get(kConfigMaps, ns, absl::StrCat("bench-", t)).ok();
        }));
  Print("apply (changes)", Run(requests, threads, [&](int t, int i) {
          return c.Apply(kConfigMaps, ns, object(t, std::to_string(i + 1))).ok();
        }));
  for (int t = 0; t < threads; ++t) (void)c.Apply(kConfigMaps, ns, object(t, "steady"));
  Print("apply (no-op)", Run(requests, threads, [&](int t, int) {
          return c.Apply(kConfigMaps, ns, object(t, "steady")).ok();
        }));
  const TransportStats stats = c.transport().stats();
  std::printf("requests %lld, TCP connections opened %lld\n",
              static_cast<long long>(stats.requests),
              static_cast<long long>(stats.connections_opened));
  std::printf("memory after: RSS %s, peak RSS %s\n", ProcStatus("VmRSS").c_str(),
              ProcStatus("VmHWM").c_str());
  (void)c.Delete(kNamespaces, "", ns, {.propagation = PropagationPolicy::kBackground});
  return 0;
}

}  // namespace
}  // namespace quorum::kube

int main(int argc, char** argv) { return quorum::kube::Main(argc, argv); }
