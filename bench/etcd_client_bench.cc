// etcd_client_bench: Quorum's etcd client (etcd's gRPC API) against a real
// etcd — by default the dev control plane's ($QUORUM_ETCD_ENDPOINT, from
// `source <controlplane>/env`).
//
//   etcd_client_bench [--endpoint URL] [--calls N]
//
// Prints latency percentiles (p50/p90/p99, µs) of the calls the operator
// makes most: Put, linearizable Get, MemberList and Status; the delay from a
// Put to its event on an open watch; then the process's CPU seconds and peak
// RSS, and its CPU over 10 s idle with the watch still open (must stay ~0).
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "src/base/cancellation.h"
#include "src/etcd/client.h"
#include "src/etcd/keys.h"
#include "src/etcd/process.h"
#include "src/etcd/watch.h"

namespace quorum::etcd {
namespace {

struct Flags {
  std::string endpoint;
  int calls = 500;
};

void Print(const char* what, std::vector<double> us) {
  if (us.empty()) {
    std::printf("%-22s no samples\n", what);
    return;
  }
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[std::min(us.size() - 1, size_t(q * us.size()))]; };
  std::printf("%-22s n=%-5zu p50 %8.0f µs  p90 %8.0f µs  p99 %8.0f µs\n", what, us.size(), at(0.5),
              at(0.9), at(0.99));
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long PeakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Times `call` `n` times; a failed call ends the run with its error.
template <typename F>
bool Measure(const char* what, int n, F call) {
  std::vector<double> us;
  for (int i = 0; i < n; ++i) {
    const absl::Time t0 = absl::Now();
    absl::Status s = call(i);
    if (!s.ok()) {
      std::fprintf(stderr, "%s failed: %s\n", what, std::string(s.message()).c_str());
      return false;
    }
    us.push_back(absl::ToDoubleMicroseconds(absl::Now() - t0));
  }
  Print(what, std::move(us));
  return true;
}

int Run(const Flags& f) {
  absl::StatusOr<std::unique_ptr<Client>> made =
      Client::Create({.endpoints = {f.endpoint}, .timeout = absl::Seconds(5)});
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", std::string(made.status().message()).c_str());
    return 1;
  }
  Client& c = **made;
  const std::string prefix = absl::StrCat("/quorum-bench/", getpid(), "/");
  std::printf("etcd client (gRPC) against %s, %d calls each\n", f.endpoint.c_str(), f.calls);
  const bool ok =
      Measure("Put", f.calls,
              [&](int i) { return c.Put(absl::StrCat(prefix, i % 50), "value").status(); }) &&
      Measure("Get (linearizable)", f.calls,
              [&](int i) { return c.Get(absl::StrCat(prefix, i % 50)).status(); }) &&
      Measure("MemberList", f.calls, [&](int) { return c.MemberList().status(); }) &&
      Measure("Status", f.calls, [&](int) { return c.Status(f.endpoint).status(); });
  if (!ok) return 1;

  // Put → event on an open watch.
  Cancellation cancel;
  std::atomic<int64_t> seen{0};
  absl::Notification connected;
  WatchOptions opts{.key = prefix + "w"};
  opts.on_connected = [&](int64_t) {
    if (!connected.HasBeenNotified()) connected.Notify();
  };
  KeyWatcher w(c, opts);
  std::thread t([&] {
    absl::Status s = w.Run(
        [&](const WatchUpdate& u) {
          if (!u.events.empty()) seen.fetch_add(static_cast<int64_t>(u.events.size()));
          return true;
        },
        cancel);
    if (!s.ok() && !absl::IsCancelled(s)) {
      std::fprintf(stderr, "watch: %s\n", std::string(s.message()).c_str());
    }
  });
  connected.WaitForNotificationWithTimeout(absl::Seconds(10));
  std::vector<double> delays;
  for (int i = 0; i < std::min(f.calls, 200); ++i) {
    const int64_t before = seen.load();
    const absl::Time t0 = absl::Now();
    if (!c.Put(prefix + "w", absl::StrCat(i)).ok()) break;
    while (seen.load() == before && absl::Now() - t0 < absl::Seconds(5)) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (seen.load() == before) break;
    delays.push_back(absl::ToDoubleMicroseconds(absl::Now() - t0));
  }
  Print("Put to watch event", std::move(delays));
  const double cpu = CpuSeconds();
  std::printf("CPU %.2f s so far, peak RSS %ld KiB\n", cpu, PeakRssKb());
  absl::SleepFor(absl::Seconds(10));
  std::printf("idle 10 s with the watch open: CPU %.3f s\n", CpuSeconds() - cpu);
  cancel.Cancel();
  t.join();
  (void)c.DeletePrefix(prefix);
  return 0;
}

}  // namespace
}  // namespace quorum::etcd

int main(int argc, char** argv) {
  quorum::etcd::UseNativeNameResolution();
  quorum::etcd::Flags f;
  if (const char* e = std::getenv("QUORUM_ETCD_ENDPOINT")) f.endpoint = e;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--endpoint" && i + 1 < argc) {
      f.endpoint = argv[++i];
    } else if (a == "--calls" && i + 1 < argc && absl::SimpleAtoi(argv[i + 1], &f.calls)) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: etcd_client_bench [--endpoint URL] [--calls N]\n");
      return 2;
    }
  }
  if (f.endpoint.empty()) {
    std::fprintf(stderr, "no etcd: --endpoint URL or QUORUM_ETCD_ENDPOINT (source <cp>/env)\n");
    return 2;
  }
  return quorum::etcd::Run(f);
}
