// patroni_probe_bench: how long the operator's look at the members' roles
// takes when some members hang (issue 14.7: a member on a dead node delayed
// the primary label of every cluster).
//
//   patroni_probe_bench [--clusters N] [--hung K] [--workers W]
//
// N clusters (default 100) of 3 members each; in K of them (default 10) one
// member hangs: its REST port accepts connections and never answers (as a
// member whose node stopped, or whose Patroni is SIGSTOPped). The healthy
// members answer GET /patroni from a local HTTP server. W workers (default 2,
// as the operator runs) take the clusters from one queue, like the work
// queue, and observe each cluster's members:
//   parallel-1s:   patroni::ObserveRoles (what the operator does now: all
//                  members at once, 1 s timeout);
//   sequential-3s: one member after another, 3 s timeout (before).
// Prints, per mode, the time until each healthy cluster's roles are known
// (p50/p99/max, from the start of the sweep) and the sweep's total time.
// Figures only: nothing is asserted.
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/patroni/rest_client.h"
#include "src/patroni/role_sync.h"

namespace {

using quorum::patroni::RestClient;

// A TCP port that accepts and never answers.
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

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  int clusters = 100, hung = 10, workers = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int value = 0;
    if (!absl::SimpleAtoi(argv[i + 1], &value)) continue;
    if (flag == "--clusters") clusters = value;
    if (flag == "--hung") hung = value;
    if (flag == "--workers") workers = value;
  }
  httplib::Server server;
  server.Get("/patroni", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"state": "running", "role": "replica", "patroni": {"name": "m"}})",
                    "application/json");
  });
  const int healthy_port = server.bind_to_any_port("127.0.0.1");
  std::thread server_thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::yield();
  HungPort hung_port;
  const std::string up = absl::StrCat("http://127.0.0.1:", healthy_port);
  const std::string down = absl::StrCat("http://127.0.0.1:", hung_port.port());

  // Cluster c has members c-0..c-2; in the first `hung` clusters (spread
  // over the queue) member 0 hangs.
  std::vector<std::map<std::string, quorum::patroni::Endpoint>> members(clusters);
  std::vector<bool> has_hung(clusters, false);
  for (int c = 0; c < clusters; ++c) {
    has_hung[c] = hung > 0 && c % std::max(1, clusters / hung) == 0 &&
                  c / std::max(1, clusters / hung) < hung;
    for (int m = 0; m < 3; ++m) {
      members[c][absl::StrCat("c", c, "-", m)] = (m == 0 && has_hung[c]) ? down : up;
    }
  }

  struct Mode {
    const char* name;
    absl::Duration timeout;
    bool parallel;
  };
  for (const Mode& mode : {Mode{"parallel-1s", absl::Seconds(1), true},
                           Mode{"sequential-3s", absl::Seconds(3), false}}) {
    RestClient rest({.timeout = mode.timeout});
    std::atomic<int> next{0};
    std::vector<double> done_ms(clusters, 0);
    const absl::Time start = absl::Now();
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        for (int c = next++; c < clusters; c = next++) {
          if (mode.parallel) {
            (void)quorum::patroni::ObserveRoles(rest, members[c]);
          } else {
            for (const auto& [pod, url] : members[c]) (void)rest.GetPatroni(url);
          }
          done_ms[c] = absl::ToDoubleMilliseconds(absl::Now() - start);
        }
      });
    }
    for (std::thread& t : pool) t.join();
    const double total = absl::ToDoubleMilliseconds(absl::Now() - start);
    std::vector<double> healthy;
    for (int c = 0; c < clusters; ++c) {
      if (!has_hung[c]) healthy.push_back(done_ms[c]);
    }
    std::printf(
        "%-14s clusters=%d hung=%d workers=%d  healthy clusters' roles known after: p50=%.0f ms "
        "p99=%.0f ms max=%.0f ms; sweep %.0f ms\n",
        mode.name, clusters, hung, workers, Percentile(healthy, 0.5), Percentile(healthy, 0.99),
        Percentile(healthy, 1.0), total);
  }
  server.stop();
  server_thread.join();
  return 0;
}
