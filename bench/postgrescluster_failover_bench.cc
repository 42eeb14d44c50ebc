// postgrescluster_failover_bench: time from deleting the primary's pod to the
// first write that succeeds again through the primary Service, on a new
// primary — end to end (API server, operator, the real node, Patroni,
// PostgreSQL, kube-proxy).
//
//   postgrescluster_failover_bench --kubeconfig PATH --exec 'hack/node.sh exec CP_DIR --'
//       [--failovers N] [--operator-pid PID]
//
// Needs a running control plane, node and operator (hack/node-bench.sh starts all
// three; --exec is the command prefix that resolves cluster names). Creates a namespace
// with a 2-member PostgresCluster on the kubernetes DCS, waits until it is Ready, then N
// times: deletes the primary's pod and runs `insert ...; select inet_server_addr()` through
// the primary Service (psql under --exec) until it succeeds on another server. Prints each
// failover, p50 and max; with
// --operator-pid also the operator's peak RSS.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/kube/client.h"
#include "src/kube/config.h"

namespace {

using quorum::kube::Json;
const quorum::kube::GroupVersionResource kPg{"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
const quorum::kube::GroupVersionResource kNs{"", "v1", "namespaces"};
const quorum::kube::GroupVersionResource kPods{"", "v1", "pods"};
const quorum::kube::GroupVersionResource kSecrets{"", "v1", "secrets"};

long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

// Runs a command; its exit code and standard output.
std::pair<int, std::string> Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  return {pclose(p), out};
}

std::string Status(quorum::kube::Client& c, const std::string& ns, const char* field) {
  auto pg = c.Get(kPg, ns, "bench");
  if (!pg.ok()) return "";
  return pg->value("status", Json::object()).value(field, "");
}

bool Ready(quorum::kube::Client& c, const std::string& ns) {
  auto pg = c.Get(kPg, ns, "bench");
  if (!pg.ok() || Status(c, ns, "primary").empty()) return false;
  for (const Json& cond : pg->value("status", Json::object()).value("conditions", Json::array()))
    if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
  return false;
}

int Main(int argc, char** argv) {
  std::string kubeconfig, exec_prefix;
  int failovers = 3, pid = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--kubeconfig") {
      kubeconfig = value;
    } else if (flag == "--exec") {
      exec_prefix = value;
    } else if (flag == "--failovers" && absl::SimpleAtoi(value, &failovers)) {
    } else if (flag == "--operator-pid" && absl::SimpleAtoi(value, &pid)) {
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (exec_prefix.empty()) {
    std::fprintf(stderr, "--exec is required (e.g. 'hack/node.sh exec CP_DIR --')\n");
    return 2;
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
  auto fail = [&](const std::string& why) {
    stop = true;
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  };
  const std::string ns = absl::StrCat("bench-failover-", absl::ToUnixSeconds(absl::Now()));
  if (!c.Create(kNs, "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
           .ok()) {
    return fail("cannot create namespace " + ns);
  }
  const Json pg = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "bench"}, {"namespace", ns}}},
      {"spec",
       {{"postgresVersion", 15},
        {"instances", Json::array({{{"name", "main"},
                                    {"replicas", 2},
                                    {"dataVolumeClaimSpec",
                                     {{"accessModes", Json::array({"ReadWriteOnce"})},
                                      {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  if (auto created = c.Create(kPg, ns, pg); !created.ok())
    return fail("create: " + std::string(created.status().message()));
  const absl::Time created_at = absl::Now();
  while (!Ready(c, ns)) {
    if (absl::Now() - created_at > absl::Minutes(6)) return fail("never Ready");
    absl::SleepFor(absl::Milliseconds(200));
  }
  std::printf("PostgresCluster (2 members, kubernetes DCS) Ready after %.1f s\n",
              absl::ToDoubleSeconds(absl::Now() - created_at));
  auto secret = c.Get(kSecrets, ns, "bench-superuser");
  if (!secret.ok()) return fail("no superuser Secret");
  std::string password;
  absl::Base64Unescape(secret->value("data", Json::object()).value("password", ""), &password);
  const std::string sql = absl::StrCat(
      exec_prefix, " psql 'postgresql://postgres:", password, "@bench.", ns,
      ".svc:5432/postgres?connect_timeout=2' -XAtq -c 'create table if not exists "
      "t(v int); insert into t values (1); select host(inet_server_addr());' 2>/dev/null");

  std::vector<double> seconds;
  for (int i = 0; i < failovers; ++i) {
    while (!Ready(c, ns)) absl::SleepFor(absl::Milliseconds(200));
    const std::string primary = Status(c, ns, "primary");
    auto pod = c.Get(kPods, ns, primary);
    if (!pod.ok()) return fail("primary pod " + primary + " not found");
    const std::string old_ip = pod->value("status", Json::object()).value("podIP", "");
    const absl::Time t0 = absl::Now();
    if (!c.Delete(kPods, ns, primary).ok()) return fail("cannot delete " + primary);
    bool ok = false;
    while (absl::Now() - t0 < absl::Minutes(3)) {
      auto [rc, out] = Run(sql);
      const std::string ip(absl::StripAsciiWhitespace(out));
      if (rc == 0 && !ip.empty() && ip != old_ip) {
        ok = true;
        break;
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
    const double s = absl::ToDoubleSeconds(absl::Now() - t0);
    std::printf("failover %d (%s deleted): %s after %.2f s\n", i + 1, primary.c_str(),
                ok ? "writes succeed" : "NO write", s);
    std::fflush(stdout);
    if (ok) seconds.push_back(s);
  }
  stop = true;
  if (sampler.joinable()) sampler.join();
  (void)c.Delete(kNs, "", ns);
  std::sort(seconds.begin(), seconds.end());
  if (!seconds.empty()) {
    std::printf(
        "primary pod deleted to writes succeeding again through the primary Service: p50 %.2f s, "
        "max %.2f s over %zu failovers\n",
        seconds[seconds.size() / 2], seconds.back(), seconds.size());
  }
  if (pid > 0) std::printf("operator RSS: peak %ld KiB, last %ld KiB\n", peak, RssKb(pid));
  return seconds.size() == static_cast<size_t>(failovers) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
