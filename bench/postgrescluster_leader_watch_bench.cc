// postgrescluster_leader_watch_bench: leader key changed in etcd -> the new
// leader's pod labelled role=primary (issue 14.7: "100 PostgresClusters, one
// member of 10 of them on a stopped node; a switchover in a healthy cluster
// moves its role=primary label within 1 s p99").
//
//   QUORUM_CONTROLPLANE_DIR=DIR postgrescluster_leader_watch_bench
//       [--clusters N] [--stopped K] [--switchovers S] [--workers W]
//       [--settle-seconds A] [--idle-seconds B]
//
// DIR is a control plane from `hack/controlplane.sh start DIR` (the CRDs are
// installed here). What is real and what is simulated (printed too):
//   real: kube-apiserver + kube-controller-manager (the StatefulSet
//     controller makes the member pods; no kubelet, so they stay Pending);
//     one etcd process as every cluster's Patroni DCS; the PostgresCluster
//     controller (manager, cache, work queue, W workers, the reconciler and
//     its leader watch) running in this process, as the operator runs it;
//     the pods' role labels written through the API server and observed by
//     a watch.
//   simulated: Patroni. Each member's REST API (GET /patroni) is a local
//     HTTP stand-in answering role=primary for the member the bench made
//     leader and replica for the others (the reconciler is given the
//     stand-in's URL per pod instead of the pod IP); the member that stands
//     for one on a stopped node, in K clusters, is a port that accepts and
//     never answers (the probe waits its full 1 s timeout). A "switchover"
//     is what Patroni would leave behind: the stand-in says the new leader is
//     primary, then the bench writes the new member name into the cluster's
//     leader key in etcd (no lease).
// N clusters (default 100) of 3 members; S switchovers (default 60), one at
// a time, round-robin over the healthy clusters; each measures from the
// leader-key put to the watch event showing role=primary on the new leader.
// Prints p50/p99/max. Then, after A seconds (default 60) for the backoffs
// the switchovers started to grow, an idle window of B seconds (default 60):
// the CPU of the whole process and of the controller alone (the process less
// the stand-in's and the observer's threads, timed per thread), and how many
// member probes the stand-in answered. Figures only: nothing is asserted.
#include <httplib.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "src/controllers/common/cache_scopes.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/client.h"
#include "src/kube/watch.h"
#include "src/patroni/role.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum {
namespace {

using kube::Json;
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};

// A TCP port that accepts and never answers: a member whose node stopped.
class HungPort {
 public:
  HungPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(fd_, 1024);
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        held_.push_back(c);
      }
    });
  }
  ~HungPort() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    for (int c : held_) close(c);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::vector<int> held_;
};

// Which member leads each cluster (the stand-in's answers).
class Leaders {
 public:
  void Set(const std::string& cluster, const std::string& pod) {
    absl::MutexLock lock(&mu_);
    leader_[cluster] = pod;
  }
  bool Is(const std::string& cluster, const std::string& pod) {
    absl::MutexLock lock(&mu_);
    auto it = leader_.find(cluster);
    return it != leader_.end() && it->second == pod;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::string> leader_;
};

// Each cluster's dynamic configuration as Patroni's /config keeps it: GET
// answers it, PATCH merges into it (RFC 7396, as Patroni does).
class DynamicConfigs {
 public:
  std::string Get(const std::string& cluster) {
    absl::MutexLock lock(&mu_);
    auto it = config_.find(cluster);
    return it == config_.end() ? "{}" : it->second.dump();
  }
  bool Patch(const std::string& cluster, const std::string& body) {
    Json patch = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!patch.is_object()) return false;
    absl::MutexLock lock(&mu_);
    Json& config = config_[cluster];
    if (!config.is_object()) config = Json::object();
    config.merge_patch(patch);
    return true;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, Json> config_;
};

// The pods labelled primary, and since when (from a watch on the pods).
class PrimaryLabels {
 public:
  void Observe(const Json& pod) {
    const std::string name = pod["metadata"].value("name", "");
    const Json labels = pod["metadata"].value("labels", Json::object());
    const bool primary = labels.value(std::string(patroni::kRoleLabel), "") == "primary";
    absl::MutexLock lock(&mu_);
    if (!primary) {
      since_.erase(name);
    } else if (!since_.contains(name)) {
      since_[name] = absl::Now();
    }
  }
  // When `pod` became primary, waiting up to `timeout` for it.
  std::optional<absl::Time> WaitPrimary(const std::string& pod, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto has = [&] { return since_.contains(pod); };
    if (!mu_.AwaitWithTimeout(absl::Condition(&has), timeout)) return std::nullopt;
    return since_[pod];
  }
  size_t count() {
    absl::MutexLock lock(&mu_);
    return since_.size();
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, absl::Time> since_;
};

// Threads that are not the controller's (the stand-in's, the observer's),
// each recorded by itself, so their CPU can be told apart.
class OtherThreads {
 public:
  void AddSelf() {
    clockid_t clock;
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
    absl::MutexLock lock(&mu_);
    clocks_.emplace(pthread_self(), clock);
  }
  double CpuSeconds() {
    absl::MutexLock lock(&mu_);
    double sum = 0;
    for (const auto& [thread, clock] : clocks_) {
      timespec ts{};
      if (clock_gettime(clock, &ts) == 0) sum += ts.tv_sec + ts.tv_nsec / 1e9;
    }
    return sum;
  }

 private:
  absl::Mutex mu_;
  std::map<pthread_t, clockid_t> clocks_;
};

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

struct Options {
  int clusters = 100;
  int stopped = 10;
  int switchovers = 60;
  int workers = 2;
  int settle_seconds = 60;
  int idle_seconds = 60;
};

int Run(const Options& o) {
  const int clusters = o.clusters, stopped = o.stopped, switchovers = o.switchovers,
            workers = o.workers;
  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  if (cp == nullptr) {
    std::fprintf(stderr, "set QUORUM_CONTROLPLANE_DIR to a started control plane\n");
    return 2;
  }
  auto admin = kube::Client::Create(cp->config);
  if (!admin.ok()) return 2;
  for (const char* crd :
       {"etcd.aenix.io_etcdclusters.yaml", "postgres.quorum.dev_postgresclusters.yaml"}) {
    absl::Status s =
        testenv::InstallCrd(**admin, std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd);
    if (!s.ok()) {
      std::fprintf(stderr, "CRD %s: %s\n", crd, s.ToString().c_str());
      return 2;
    }
  }
  const std::string ns = absl::StrCat("leader-watch-bench-", absl::ToUnixSeconds(absl::Now()));
  if (!(*admin)->Create(kNamespaces, "", {{"metadata", {{"name", ns}}}}).ok()) return 2;

  // The DCS: one real etcd.
  etcd::testing::EtcdHarness harness({.max_members = 1, .name_prefix = "bench-dcs"});
  if (!harness.Init().ok()) return 2;
  auto etcd = etcd::Client::Create(harness.Config());
  if (!etcd.ok() || !harness.StartNewCluster(**etcd, 1).ok()) {
    std::fprintf(stderr, "etcd did not start\n%s\n", harness.LogTail(0).c_str());
    return 2;
  }

  // Patroni's REST API, simulated.
  Leaders leaders;
  OtherThreads others;
  std::atomic<int64_t> probes{0};
  httplib::Server standin;
  standin.Get(
      R"(/m/([^/]+)/([^/]+)/patroni)", [&](const httplib::Request& req, httplib::Response& res) {
        thread_local bool recorded = false;
        if (!recorded) {
          others.AddSelf();
          recorded = true;
        }
        probes.fetch_add(1, std::memory_order_relaxed);
        const bool lead = leaders.Is(req.matches[1], req.matches[2]);
        res.set_content(
            absl::StrCat(R"({"state":"running","role":")", lead ? "primary" : "replica", R"("})"),
            "application/json");
      });
  DynamicConfigs configs;
  standin.Get(R"(/m/([^/]+)/([^/]+)/config)",
              [&](const httplib::Request& req, httplib::Response& res) {
                res.set_content(configs.Get(req.matches[1]), "application/json");
              });
  standin.Patch(R"(/m/([^/]+)/([^/]+)/config)",
                [&](const httplib::Request& req, httplib::Response& res) {
                  if (!configs.Patch(req.matches[1], req.body)) res.status = 400;
                  res.set_content(configs.Get(req.matches[1]), "application/json");
                });
  // Every member's URL is its own keep-alive connection: enough threads that
  // the stand-in never queues a probe (it stands for 3 separate servers per
  // cluster).
  standin.new_task_queue = [] { return new httplib::ThreadPool(512); };
  const int standin_port = standin.bind_to_any_port("127.0.0.1");
  std::thread standin_thread([&] {
    others.AddSelf();
    standin.listen_after_bind();
  });
  HungPort hung;
  auto cluster_name = [](int i) { return absl::StrCat("pg", i); };
  auto stopped_cluster = [&](const std::string& c) {
    int i = 0;
    return absl::SimpleAtoi(c.substr(2), &i) && i < stopped;
  };
  auto member_url = [&](const Json& pod) {
    const std::string name = pod["metadata"].value("name", "");
    const std::string cluster = pod["metadata"]["labels"].value("postgres.quorum.dev/cluster", "");
    if (stopped_cluster(cluster) && name == cluster + "-main-2") {
      return absl::StrCat("http://127.0.0.1:", hung.port());
    }
    return absl::StrCat("http://127.0.0.1:", standin_port, "/m/", cluster, "/", name);
  };

  // The controller, as the operator runs it.
  auto op_client = kube::Client::Create(cp->config);
  if (!op_client.ok()) return 2;
  runtime::Manager manager(**op_client, {.namespaces = {ns},
                                         .metrics_bind_address = "0",
                                         .health_probe_bind_address = "0",
                                         .cache_scopes = controllers::CacheScopes()});
  auto reconciler = std::make_unique<postgrescluster::PostgresClusterReconciler>(
      **op_client, manager.cache(), manager.recorder(), member_url);
  postgrescluster::SetupPostgresClusterController(manager, *reconciler, workers);
  Cancellation cancel;
  std::thread runner([&] { (void)manager.Run(cancel); });

  // The observer: a watch on the pods' labels.
  PrimaryLabels primaries;
  kube::Watcher pod_watch(**admin, kPods, ns, {});
  std::thread watch_thread([&] {
    others.AddSelf();
    (void)pod_watch.Run(
        [&](const kube::WatchEvent& e) {
          if (e.type != kube::WatchEventType::kDeleted) primaries.Observe(e.object);
          return true;
        },
        cancel);
  });

  // Clusters of 3 members; member 0 leads at first.
  const std::string etcd_url = harness.ClientUrl(0);
  for (int i = 0; i < clusters; ++i) {
    const std::string c = cluster_name(i);
    leaders.Set(c, c + "-main-0");
    (void)(*etcd)->Put(absl::StrCat("/quorum/", ns, "/", c, "/leader"), c + "-main-0");
    Json pg = {
        {"apiVersion", "postgres.quorum.dev/v1alpha1"},
        {"kind", "PostgresCluster"},
        {"metadata", {{"name", c}}},
        {"spec",
         {{"postgresVersion", 15},
          {"instances",
           {{{"name", "main"},
             {"replicas", 3},
             {"dataVolumeClaimSpec",
              {{"accessModes", {"ReadWriteOnce"}},
               {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
          {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {etcd_url}}}}}}}}}}};
    absl::StatusOr<Json> created = (*admin)->Create(postgrescluster::kPostgresClusters, ns, pg);
    if (!created.ok()) {
      std::fprintf(stderr, "create %s: %s\n", c.c_str(), created.status().ToString().c_str());
      return 2;
    }
  }
  std::printf(
      "real: kube-apiserver, kube-controller-manager (pods Pending, no kubelet), one etcd "
      "(the DCS), the PostgresCluster controller in process (%d workers)\n",
      workers);
  std::printf(
      "simulated: Patroni's REST API (local stand-in); %d clusters' member -main-2 on a "
      "stopped node (a port that never answers); switchovers as leader-key puts\n",
      stopped);
  const absl::Time settle_start = absl::Now();
  for (int i = 0; i < clusters; ++i) {
    const std::string pod = cluster_name(i) + "-main-0";
    if (!primaries.WaitPrimary(pod, absl::Minutes(5))) {
      std::fprintf(stderr, "%s never labelled primary\n", pod.c_str());
      return 1;
    }
  }
  std::printf(
      "clusters=%d (3 members each), stopped-node members=%d; all labelled in %.1f s; "
      "leader watch streams=%zu followers=%zu\n",
      clusters, stopped, absl::ToDoubleSeconds(absl::Now() - settle_start),
      reconciler->leader_watch()->streams(), reconciler->leader_watch()->followers());
  absl::SleepFor(absl::Seconds(5));  // let the initial burst of reconciles drain

  std::vector<double> ms;
  int missed = 0;
  std::map<std::string, int> member;  // cluster -> leading ordinal
  const int healthy = clusters - stopped;
  for (int k = 0; k < switchovers && healthy > 0; ++k) {
    const std::string c = cluster_name(stopped + k % healthy);
    const int next = (member[c] + 1) % 2;  // between -main-0 and -main-1
    member[c] = next;
    const std::string pod = absl::StrCat(c, "-main-", next);
    leaders.Set(c, pod);
    const absl::Time t0 = absl::Now();
    (void)(*etcd)->Put(absl::StrCat("/quorum/", ns, "/", c, "/leader"), pod);
    std::optional<absl::Time> at = primaries.WaitPrimary(pod, absl::Seconds(30));
    if (!at) {
      ++missed;
      continue;
    }
    ms.push_back(absl::ToDoubleMilliseconds(*at - t0));
    absl::SleepFor(absl::Milliseconds(200));
  }
  std::printf(
      "switchovers=%zu missed(>30 s)=%d  leader key put -> role=primary on the new leader: "
      "p50=%.0f ms p99=%.0f ms max=%.0f ms\n",
      ms.size(), missed, Percentile(ms, 0.5), Percentile(ms, 0.99),
      ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()));

  // Idle: no switchover; every cluster's periodic look at its members
  // continues (capped backoff), the stopped-node clusters' probes time out,
  // the watch stream waits.
  absl::SleepFor(absl::Seconds(o.settle_seconds));
  const double cpu0 = ProcessCpuSeconds(), others0 = others.CpuSeconds();
  const int64_t probes0 = probes.load();
  absl::SleepFor(absl::Seconds(o.idle_seconds));
  const double cpu = ProcessCpuSeconds() - cpu0, other = others.CpuSeconds() - others0;
  std::printf(
      "idle %d s (starting %d s after the last switchover): process %.2f CPU s, of which the "
      "stand-in and observer %.2f; controller %.2f CPU s = %.2f %% of a core; member probes "
      "answered %lld (%.1f/s)\n",
      o.idle_seconds, o.settle_seconds, cpu, other, cpu - other,
      100.0 * (cpu - other) / std::max(1, o.idle_seconds),
      static_cast<long long>(probes.load() - probes0),
      static_cast<double>(probes.load() - probes0) / std::max(1, o.idle_seconds));

  cancel.Cancel();
  runner.join();
  watch_thread.join();
  reconciler.reset();
  standin.stop();
  standin_thread.join();
  (void)(*admin)->Delete(kNamespaces, "", ns);
  return 0;
}

}  // namespace
}  // namespace quorum

int main(int argc, char** argv) {
  quorum::Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int v = 0;
    if (!absl::SimpleAtoi(argv[i + 1], &v)) return 2;
    if (flag == "--clusters") o.clusters = v;
    if (flag == "--stopped") o.stopped = v;
    if (flag == "--switchovers") o.switchovers = v;
    if (flag == "--workers") o.workers = v;
    if (flag == "--settle-seconds") o.settle_seconds = v;
    if (flag == "--idle-seconds") o.idle_seconds = v;
  }
  return quorum::Run(o);
}
