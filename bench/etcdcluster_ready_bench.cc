// etcdcluster_ready_bench: time from EtcdCluster creation to Ready with 3
// real etcd members, end to end (API server, operator, the real node, etcd).
//
//   etcdcluster_ready_bench --kubeconfig PATH [--runs N] [--replicas R] [--operator-pid PID]
//
// Needs a running control plane, node and operator (hack/node-bench.sh starts all
// three). Each run creates a fresh namespace and an EtcdCluster
// (emptyDir), polls its Ready condition every 100 ms, then deletes the
// namespace. Prints each run, p50 and max; with --operator-pid also the
// operator's peak and last RSS (sampled every 100 ms).
#include <algorithm>
#include <atomic>
#include <cstdio>
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

namespace {

using quorum::kube::Json;
const quorum::kube::GroupVersionResource kEtcd{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const quorum::kube::GroupVersionResource kNs{"", "v1", "namespaces"};

long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

bool Ready(quorum::kube::Client& c, const std::string& ns) {
  auto e = c.Get(kEtcd, ns, "bench");
  if (!e.ok()) return false;
  const Json& st = e->value("status", Json::object());
  for (const Json& cond : st.value("conditions", Json::array()))
    if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
  return false;
}

int Main(int argc, char** argv) {
  std::string kubeconfig;
  int runs = 3, replicas = 3, pid = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--kubeconfig")
      kubeconfig = value;
    else if (flag == "--runs" && absl::SimpleAtoi(value, &runs)) {
    } else if (flag == "--replicas" && absl::SimpleAtoi(value, &replicas)) {
    } else if (flag == "--operator-pid" && absl::SimpleAtoi(value, &pid)) {
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto config = quorum::kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "kubeconfig: %s\n", std::string(config.status().message()).c_str());
    return 1;
  }
  auto client = quorum::kube::Client::Create(*config);
  if (!client.ok()) return 1;
  quorum::kube::Client& c = **client;

  long peak = 0;
  std::atomic<bool> stop{false};
  std::jthread sampler([&] {
    while (!stop && pid > 0) {
      peak = std::max(peak, RssKb(pid));
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const std::string ns = absl::StrCat("bench-ready-", r, "-", absl::ToUnixSeconds(absl::Now()));
    if (!c.Create(kNs, "",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
             .ok()) {
      stop = true;
      return 1;
    }
    const absl::Time t0 = absl::Now();
    auto created =
        c.Create(kEtcd, ns,
                 {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                  {"kind", "EtcdCluster"},
                  {"metadata", {{"name", "bench"}, {"namespace", ns}}},
                  {"spec", {{"replicas", replicas}, {"storage", {{"emptyDir", Json::object()}}}}}});
    if (!created.ok()) {
      stop = true;
      std::fprintf(stderr, "create: %s\n", std::string(created.status().message()).c_str());
      return 1;
    }
    bool ok = false;
    while (absl::Now() - t0 < absl::Minutes(5)) {
      if ((ok = Ready(c, ns))) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    const double s = absl::ToDoubleSeconds(absl::Now() - t0);
    std::printf("run %d: %s after %.2f s\n", r + 1, ok ? "Ready" : "NOT Ready", s);
    std::fflush(stdout);
    if (ok) seconds.push_back(s);
    auto deleted = c.Delete(kNs, "", ns);
    (void)deleted;
  }
  stop = true;
  if (sampler.joinable()) sampler.join();
  std::sort(seconds.begin(), seconds.end());
  if (!seconds.empty()) {
    std::printf(
        "EtcdCluster (%d members, emptyDir) creation to Ready: p50 %.2f s, max %.2f s over %zu "
        "runs\n",
        replicas, seconds[seconds.size() / 2], seconds.back(), seconds.size());
  }
  if (pid > 0) std::printf("operator RSS: peak %ld KiB, last %ld KiB\n", peak, RssKb(pid));
  return seconds.size() == static_cast<size_t>(runs) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
