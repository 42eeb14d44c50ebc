// scale_bench: the operator process at scale against a real API server (no
// kubelet: pods stay Pending, as in issue 17's side-by-side measurements).
//
//   scale_bench --operator PATH [--kubeconfig PATH] [--clusters N] [--pg-clusters M]
//               [--unrelated K] [--idle-seconds S] [--creators C] [--operator-arg ARG]...
//
// Starts the operator binary as a child (no leader election), waits until its
// caches are synced, then creates N EtcdClusters (3 replicas, emptyDir) and M
// PostgresClusters (kubernetes DCS) in a fresh namespace from C threads, and
// prints what the operator spent: RSS (idle before, settled, peak), CPU
// seconds to settle and over an idle window, API writes to settle and in
// idle, first create -> all StatefulSets applied, p50/p99 per-cluster apply
// latency, threads. With --unrelated K, K ConfigMaps and K Secrets (2 KiB
// each) exist in another namespace before the operator starts.
//
// "Settled": every cluster's StatefulSet exists, and for 10 s the operator
// made no API write and received no watch event: the control plane has
// caught up too (kube-controller-manager creates pods and writes StatefulSet
// status for minutes after the operator's last write at N=1,000), so the idle
// window that follows is one where nothing changes. Needs the CRDs
// installed. Figures only, nothing asserted.
// QUORUM_BENCH_PERF=settle|idle: records `perf record --call-graph dwarf` of
// that phase into scale-bench.perf.data (in the current folder).
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/operator_metrics.h"
#include "src/kube/client.h"
#include "src/kube/config.h"
#include "src/runtime/informer.h"

extern char** environ;

namespace quorum {
namespace {

using kube::Json;

const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};

struct ProcSample {
  double cpu_seconds = 0;
  double rss_mib = 0;
  double hwm_mib = 0;
  int threads = 0;
};

ProcSample Sample(pid_t pid) {
  ProcSample s;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::vector<std::string> f = absl::StrSplit(text.substr(close + 2), ' ');
    // Fields after the command: state is [0]; utime is field 14 => [11], stime [12].
    if (f.size() > 12) {
      double ut = 0, st = 0;
      (void)absl::SimpleAtod(f[11], &ut);
      (void)absl::SimpleAtod(f[12], &st);
      s.cpu_seconds = (ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    double kb = 0;
    auto value = [&](const char* key) {
      if (line.rfind(key, 0) != 0) return false;
      std::istringstream in(line.substr(std::string(key).size()));
      in >> kb;
      return true;
    };
    if (value("VmRSS:")) s.rss_mib = kb / 1024;
    if (value("VmHWM:")) s.hwm_mib = kb / 1024;
    if (value("Threads:")) s.threads = static_cast<int>(kb);
  }
  return s;
}

// CPU seconds of the control plane's API server and etcd (from the pid files
// of hack/controlplane.sh in $QUORUM_CONTROLPLANE_DIR; 0 when unknown).
double ControlPlaneCpu() {
  const char* dir = getenv("QUORUM_CONTROLPLANE_DIR");
  if (dir == nullptr) return 0;
  double total = 0;
  for (const char* name : {"kube-apiserver", "etcd"}) {
    std::ifstream in(absl::StrCat(dir, "/pids/", name, ".pid"));
    int pid = 0;
    if (in >> pid) total += Sample(pid).cpu_seconds;
  }
  return total;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(a.sin_port);
}

pid_t Spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

// Writes per series while settling: how many, and when the last one was.
struct SeriesWrites {
  double count = 0;
  absl::Time last;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

Json EtcdCluster(const std::string& name) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", name}}},
          {"spec", {{"replicas", 3}, {"storage", {{"emptyDir", Json::object()}}}}}};
}

Json PostgresCluster(const std::string& name) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"postgresVersion", 17},
            {"instances", Json::array({{{"name", "main"},
                                        {"replicas", 3},
                                        {"dataVolumeClaimSpec",
                                         {{"accessModes", Json::array({"ReadWriteOnce"})},
                                          {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})},
            {"patroni", {{"dcs", {{"type", "kubernetes"}}}}}}}};
}

struct Args {
  std::string kubeconfig, operator_path;
  int clusters = 100, pg_clusters = -1, unrelated = 0, creators = 8;
  int idle_seconds = 60;
  std::vector<std::string> operator_args;
};

// CPU milliseconds of a fixed piece of work in this process (parse and
// serialise a StatefulSet-sized JSON object 2,000 times), on this thread's
// clock: how fast the machine is at the time, so that the operator's CPU
// seconds of runs on a faster or slower moment can be compared.
double ReferenceCpuMillis() {
  Json object = {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}};
  for (int i = 0; i < 60; ++i) {
    object["spec"]["template"]["spec"]["containers"].push_back(
        {{"name", absl::StrCat("c", i)}, {"image", "registry.k8s.io/etcd:3.6.16"}, {"port", i}});
  }
  const std::string text = object.dump();
  timespec t0{}, t1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  size_t sink = 0;
  for (int i = 0; i < 2000; ++i) sink += Json::parse(text).dump().size();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  if (sink == 0) std::printf("(nothing parsed)\n");
  return (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
}

int Main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show up in logs at once
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--kubeconfig") a.kubeconfig = v;
    if (k == "--operator") a.operator_path = v;
    if (k == "--clusters") (void)absl::SimpleAtoi(v, &a.clusters);
    if (k == "--pg-clusters") (void)absl::SimpleAtoi(v, &a.pg_clusters);
    if (k == "--unrelated") (void)absl::SimpleAtoi(v, &a.unrelated);
    if (k == "--idle-seconds") (void)absl::SimpleAtoi(v, &a.idle_seconds);
    if (k == "--creators") (void)absl::SimpleAtoi(v, &a.creators);
    if (k == "--operator-arg") a.operator_args.push_back(v);
  }
  if (a.pg_clusters < 0) a.pg_clusters = a.clusters / 10;
  if (a.operator_path.empty()) {
    std::fprintf(stderr, "scale_bench: --operator PATH is required\n");
    return 2;
  }
  if (a.kubeconfig.empty() && getenv("KUBECONFIG") != nullptr) a.kubeconfig = getenv("KUBECONFIG");
  auto config = kube::LoadKubeconfigFile(a.kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "scale_bench: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  config->qps = 0;
  auto made = kube::Client::Create(*config);
  if (!made.ok()) return 2;
  kube::Client& client = **made;
  // An earlier run's namespaces still being deleted would be cached and
  // reconciled by this run's operator: wait until they are gone.
  for (const absl::Time deadline = absl::Now() + absl::Minutes(10);;) {
    auto list = client.List(kNamespaces, "");
    int left = 0;
    if (list.ok()) {
      for (const Json& n : (*list)["items"]) {
        if (absl::StartsWith(n["metadata"].value("name", ""), "bench-")) ++left;
      }
    }
    if (left == 0 || absl::Now() > deadline) break;
    std::printf("waiting for %d bench namespace(s) of earlier runs to be deleted\n", left);
    absl::SleepFor(absl::Seconds(10));
  }
  const std::string ns = absl::StrCat("bench-scale-", getpid());
  const std::string other_ns = absl::StrCat("bench-unrelated-", getpid());
  auto make_ns = [&](const std::string& name) {
    return client
        .Create(kNamespaces, "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}})
        .ok();
  };
  if (!make_ns(ns)) return 1;
  if (a.unrelated > 0) {
    if (!make_ns(other_ns)) return 1;
    const std::string blob(2048, 'x');
    for (int i = 0; i < a.unrelated; ++i) {
      const std::string name = absl::StrCat("unrelated-", i);
      (void)client.Create(kConfigMaps, other_ns,
                          {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", name}}},
                           {"data", {{"blob", blob}}}});
      (void)client.Create(kSecrets, other_ns,
                          {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"metadata", {{"name", name}}},
                           {"stringData", {{"blob", blob}}}});
    }
    std::printf("created %d unrelated ConfigMaps and %d Secrets in %s\n", a.unrelated, a.unrelated,
                other_ns.c_str());
  }

  // The operator.
  const int port = FreePort();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  std::vector<std::string> args = {a.operator_path, "--kubeconfig=" + a.kubeconfig,
                                   "--leader-elect=false", "--metrics-bind-address=" + address,
                                   "--health-probe-bind-address=" + address};
  for (const std::string& x : a.operator_args) args.push_back(x);
  const std::string log = absl::StrCat("/tmp/scale-bench-operator-", getpid(), ".log");
  const pid_t op = Spawn(args, log);
  if (op <= 0) {
    std::fprintf(stderr, "scale_bench: cannot start %s\n", a.operator_path.c_str());
    return 1;
  }
  std::printf("operator pid %d, log %s, args:", op, log.c_str());
  for (size_t i = 1; i < args.size(); ++i) std::printf(" %s", args[i].c_str());
  std::printf("\n");
  bench::OperatorMetrics metrics(port);
  const absl::Time ready_deadline = absl::Now() + absl::Minutes(3);
  while (!metrics.Ready()) {
    if (absl::Now() > ready_deadline || waitpid(op, nullptr, WNOHANG) == op) {
      std::fprintf(stderr, "scale_bench: the operator did not become ready (see %s)\n",
                   log.c_str());
      kill(op, SIGKILL);
      return 1;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  absl::SleepFor(absl::Seconds(5));
  const ProcSample idle0 = Sample(op);

  // StatefulSets as they appear: the last object applied for each cluster.
  absl::Mutex mu;
  std::map<std::string, absl::Time> created, applied;
  runtime::InformerOptions io;
  io.namespaces = {ns};
  runtime::SharedInformer sts(client, kStatefulSets, io);
  sts.AddEventHandler({.on_add = [&](const runtime::ObjectPtr& o) {
    const std::string inst =
        (*o)["metadata"].value("labels", Json::object()).value("app.kubernetes.io/instance", "");
    absl::MutexLock lock(&mu);
    applied.emplace(inst, absl::Now());
  }});
  sts.Start();
  sts.WaitForSync(absl::Minutes(1));

  const char* perf_env = getenv("QUORUM_BENCH_PERF");
  const std::string perf = perf_env ? perf_env : "";
  auto start_perf = [&](const std::string& phase) -> pid_t {
    if (perf != phase) return -1;
    // The binary has no frame pointers: unwind with DWARF (8 KiB of stack per
    // sample), at a rate that keeps the file small.
    return Spawn({"/usr/bin/perf", "record", "-F", "199", "--call-graph", "dwarf,8192", "-o",
                  "scale-bench.perf.data", "-p", std::to_string(op)},
                 "/tmp/scale-bench-perf.log");
  };
  auto stop_perf = [](pid_t p) {
    if (p <= 0) return;
    kill(p, SIGINT);
    waitpid(p, nullptr, 0);
  };

  // Create.
  const int total = a.clusters + a.pg_clusters;
  const double writes0 = metrics.Writes();
  const double reconciles0 = metrics.Sum("controller_runtime_reconcile_total");
  const double etcd_reconciles0 =
      metrics.Sum("controller_runtime_reconcile_total", "controller=\"etcdcluster\"");
  const double reference0 = ReferenceCpuMillis();
  const double events0 = metrics.Sum("informer_events_total");
  const ProcSample before = Sample(op);
  const double cp_before = ControlPlaneCpu();
  const absl::Time first_create = absl::Now();
  pid_t perf_pid = start_perf("settle");
  std::atomic<int> next{0}, failed{0};
  std::vector<std::thread> creators;
  for (int t = 0; t < a.creators; ++t) {
    creators.emplace_back([&] {
      for (int i = next++; i < total; i = next++) {
        const bool pg = i >= a.clusters;
        const std::string name = pg ? absl::StrCat("p", i - a.clusters) : absl::StrCat("e", i);
        {
          absl::MutexLock lock(&mu);
          created[name] = absl::Now();
        }
        auto r = pg ? client.Create(kPostgresClusters, ns, PostgresCluster(name))
                    : client.Create(kEtcdClusters, ns, EtcdCluster(name));
        if (!r.ok()) {
          if (failed++ < 3) {
            std::fprintf(stderr, "create %s: %s\n", name.c_str(),
                         std::string(r.status().message()).c_str());
          }
        }
      }
    });
  }
  for (std::thread& t : creators) t.join();
  const absl::Time last_create = absl::Now();

  // Settle: all applied, then no write and no watch event for 10 s.
  double last_writes = metrics.Writes();
  double last_events = metrics.Sum("informer_events_total");
  std::map<std::string, double> series_seen = metrics.WritesByResource();
  std::map<std::string, SeriesWrites> by_series;
  absl::Time last_change = absl::Now(), last_write_at = last_change, last_event_at = last_change;
  ProcSample at_change = Sample(op);
  ProcSample at_last_write = at_change;
  // The first sample (1 s apart) that saw every cluster's StatefulSet: the
  // issue's "CPU from first create to all objects created".
  std::optional<ProcSample> at_all_applied;
  ProcSample peak = at_change;
  const absl::Time settle_deadline = absl::Now() + absl::Minutes(20);
  for (;;) {
    absl::SleepFor(absl::Seconds(1));
    const double w = metrics.Writes();
    const double e = metrics.Sum("informer_events_total");
    const ProcSample s = Sample(op);
    peak.hwm_mib = std::max(peak.hwm_mib, s.hwm_mib);
    peak.threads = std::max(peak.threads, s.threads);
    size_t done = 0;
    {
      absl::MutexLock lock(&mu);
      done = applied.size();
    }
    if (!at_all_applied.has_value() && done >= static_cast<size_t>(total - failed)) {
      at_all_applied = s;
    }
    if (w != last_writes) {
      last_writes = w;
      last_write_at = absl::Now();
      at_last_write = s;
      for (const auto& [series, n] : metrics.WritesByResource()) {
        double& seen = series_seen[series];
        if (n == seen) continue;
        by_series[series].count += n - seen;
        by_series[series].last = last_write_at;
        seen = n;
      }
    }
    if (e != last_events) {
      last_events = e;
      last_event_at = absl::Now();
    }
    if (std::max(last_write_at, last_event_at) != last_change) {
      last_change = std::max(last_write_at, last_event_at);
      at_change = s;
    }
    if (done >= static_cast<size_t>(total - failed) &&
        absl::Now() - last_change >= absl::Seconds(10)) {
      break;
    }
    if (absl::Now() > settle_deadline) {
      std::printf("NOT SETTLED within 20 min: %zu of %d applied\n", done, total);
      break;
    }
  }
  stop_perf(perf_pid);
  const double cp_settle = ControlPlaneCpu() - cp_before;
  const double writes_settle = last_writes - writes0;
  std::vector<double> latencies;
  absl::Time last_applied = first_create;
  {
    absl::MutexLock lock(&mu);
    for (const auto& [name, t] : created) {
      auto it = applied.find(name);
      if (it == applied.end()) continue;
      latencies.push_back(absl::ToDoubleMilliseconds(it->second - t));
      last_applied = std::max(last_applied, it->second);
    }
  }

  const double reconciles_settle = metrics.Sum("controller_runtime_reconcile_total") - reconciles0;
  const double etcd_reconciles_settle =
      metrics.Sum("controller_runtime_reconcile_total", "controller=\"etcdcluster\"") -
      etcd_reconciles0;
  const double reference1 = ReferenceCpuMillis();
  const double events_settle = metrics.Sum("informer_events_total") - events0;

  // Idle.
  const double idle_reconciles0 = metrics.Sum("controller_runtime_reconcile_total");
  const double idle_etcd0 =
      metrics.Sum("controller_runtime_reconcile_total", "controller=\"etcdcluster\"");
  // What woke the idle reconciles: watch events by resource, results by kind.
  const std::vector<std::string> resources = {"etcdclusters.etcd.aenix.io",
                                              "postgresclusters.postgres.quorum.dev",
                                              "statefulsets.apps",
                                              "pods",
                                              "services",
                                              "configmaps",
                                              "poddisruptionbudgets.policy",
                                              "persistentvolumeclaims",
                                              "secrets"};
  const std::vector<std::string> results = {"success", "requeue_after", "requeue", "error"};
  auto breakdown = [&] {
    std::vector<double> v;
    for (const std::string& r : resources) {
      v.push_back(metrics.Sum("informer_events_total", "resource=\"" + r + "\""));
    }
    for (const std::string& r : results) {
      v.push_back(metrics.Sum("controller_runtime_reconcile_total", "result=\"" + r + "\""));
    }
    return v;
  };
  const std::vector<double> idle_breakdown0 = breakdown();
  const ProcSample idle_start = Sample(op);
  const double idle_writes0 = metrics.Writes();
  perf_pid = start_perf("idle");
  absl::SleepFor(absl::Seconds(a.idle_seconds));
  stop_perf(perf_pid);
  const ProcSample idle_end = Sample(op);
  const double idle_writes = metrics.Writes() - idle_writes0;
  const double idle_reconciles =
      metrics.Sum("controller_runtime_reconcile_total") - idle_reconciles0;
  const double idle_etcd =
      metrics.Sum("controller_runtime_reconcile_total", "controller=\"etcdcluster\"") - idle_etcd0;
  const std::vector<double> idle_breakdown1 = breakdown();
  std::string idle_events, idle_results;
  for (size_t i = 0; i < resources.size() + results.size(); ++i) {
    const double d = idle_breakdown1[i] - idle_breakdown0[i];
    if (d <= 0) continue;
    std::string& out = i < resources.size() ? idle_events : idle_results;
    const std::string& name = i < resources.size() ? resources[i] : results[i - resources.size()];
    absl::StrAppend(&out, out.empty() ? "" : ", ", name, " ", d);
  }

  std::printf(
      "\n== scale_bench: %d EtcdClusters + %d PostgresClusters%s ==\n", a.clusters, a.pg_clusters,
      a.unrelated > 0
          ? absl::StrCat(", ", a.unrelated, " unrelated ConfigMaps + Secrets elsewhere").c_str()
          : "");
  std::printf("create failures                         %d\n", failed.load());
  std::printf("RSS idle before creating                %.1f MiB\n", idle0.rss_mib);
  std::printf("RSS settled (end of idle window)        %.1f MiB\n", idle_end.rss_mib);
  std::printf("RSS peak (VmHWM)                        %.1f MiB\n",
              std::max(peak.hwm_mib, idle_end.hwm_mib));
  std::printf("CPU first create -> settled             %.2f s\n",
              at_change.cpu_seconds - before.cpu_seconds);
  if (at_all_applied.has_value()) {
    std::printf("CPU first create -> all StatefulSets    %.2f s\n",
                at_all_applied->cpu_seconds - before.cpu_seconds);
  }
  std::printf("CPU first create -> last operator write  %.2f s\n",
              at_last_write.cpu_seconds - before.cpu_seconds);
  std::printf("CPU idle, %d s window                    %.2f s\n", a.idle_seconds,
              idle_end.cpu_seconds - idle_start.cpu_seconds);
  std::printf("API writes to settle                    %.0f\n", writes_settle);
  std::printf("API server + etcd CPU while settling     %.1f s\n", cp_settle);
  std::printf("API writes in idle window               %.0f\n", idle_writes);
  std::printf("reconciles / watch events to settle      %.0f / %.0f\n", reconciles_settle,
              events_settle);
  std::printf("reconciles to settle by controller      EtcdCluster %.0f, PostgresCluster %.0f\n",
              etcd_reconciles_settle, reconciles_settle - etcd_reconciles_settle);
  std::printf("reference work before / after settle    %.0f / %.0f ms CPU\n", reference0,
              reference1);
  std::printf(
      "reconciles in idle window               %.0f (EtcdCluster %.0f, PostgresCluster %.0f)\n",
      idle_reconciles, idle_etcd, idle_reconciles - idle_etcd);
  std::printf("idle watch events                        %s\n",
              idle_events.empty() ? "none" : idle_events.c_str());
  std::printf("idle reconciles by result               %s\n",
              idle_results.empty() ? "none" : idle_results.c_str());
  std::printf("first create -> last write / last event  %.1f s / %.1f s\n",
              absl::ToDoubleSeconds(last_write_at - first_create),
              absl::ToDoubleSeconds(last_event_at - first_create));
  std::printf("creating all clusters took              %.1f s\n",
              absl::ToDoubleSeconds(last_create - first_create));
  std::printf("first create -> all StatefulSets        %.1f s (%zu of %d)\n",
              absl::ToDoubleSeconds(last_applied - first_create), latencies.size(), total);
  std::printf("per-cluster create -> StatefulSet       p50 %.0f ms  p99 %.0f ms\n",
              Percentile(latencies, 0.5), Percentile(latencies, 0.99));
  std::printf("threads idle / at end / peak            %d / %d / %d\n", idle0.threads,
              idle_end.threads, peak.threads);
  // Which writes came last: the settle's tail, by verb and resource.
  std::vector<std::pair<std::string, SeriesWrites>> series(by_series.begin(), by_series.end());
  std::sort(series.begin(), series.end(),
            [](const auto& x, const auto& y) { return x.second.last < y.second.last; });
  std::printf("writes to settle by verb and resource (count, last at s after first create):\n");
  for (const auto& [name, w] : series) {
    std::printf("  %-40s %7.0f  %6.1f s\n", name.c_str(), w.count,
                absl::ToDoubleSeconds(w.last - first_create));
  }
  // What the cache holds at the end, by resource (packed bytes; the RSS
  // adds the allocator's overhead, the indexes and everything else).
  const std::map<std::string, double> objects = metrics.BySeries("informer_cached_objects");
  std::printf("cache at the end by resource (objects, packed KiB, bytes per object):\n");
  for (const auto& [labels, bytes] : metrics.BySeries("informer_cached_bytes")) {
    auto n = objects.find(labels);
    const double count = n == objects.end() ? 0 : n->second;
    std::printf("  %-40s %7.0f  %8.1f  %6.0f\n", labels.c_str(), count, bytes / 1024,
                count > 0 ? bytes / count : 0);
  }
  std::fflush(stdout);

  sts.Stop();
  kill(op, SIGTERM);
  const absl::Time stop_deadline = absl::Now() + absl::Seconds(20);
  while (waitpid(op, nullptr, WNOHANG) != op) {
    if (absl::Now() > stop_deadline) {
      kill(op, SIGKILL);
      waitpid(op, nullptr, 0);
      break;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  (void)client.Delete(kNamespaces, "", ns, {.propagation = kube::PropagationPolicy::kBackground});
  // This control plane runs no pvc-protection controller: the PostgreSQL
  // claims would keep the namespace Terminating forever.
  const kube::GroupVersionResource pvcs{"", "v1", "persistentvolumeclaims"};
  for (int round = 0; round < 30; ++round) {
    auto list = client.List(pvcs, ns);
    if (!list.ok() || (*list)["items"].empty()) break;
    for (const Json& pvc : (*list)["items"]) {
      (void)client.Patch(pvcs, ns, pvc["metadata"].value("name", ""), kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}});
    }
    absl::SleepFor(absl::Seconds(2));
  }
  if (a.unrelated > 0) {
    (void)client.Delete(kNamespaces, "", other_ns,
                        {.propagation = kube::PropagationPolicy::kBackground});
  }
  return 0;
}

}  // namespace
}  // namespace quorum

int main(int argc, char** argv) { return quorum::Main(argc, argv); }
