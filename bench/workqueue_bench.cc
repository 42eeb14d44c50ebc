// workqueue_bench: throughput and latency of runtime::WorkQueue, in-process.
//
//   workqueue_bench
//
// One producer thread Add()s keys while 1, 2 or 4 workers Get() and Done()
// them with no work in between, so the figures are the queue's own overhead
// (metrics enabled, as in a controller). For each run it prints deliveries/s;
// with distinct keys, the p50/p99 add→Get latency under that load; with keys
// added repeatedly, the dedup ratio (adds per delivery). Last, the add→Get
// latency of an idle queue: one key at a time to a worker blocked in Get().
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "src/runtime/metrics.h"
#include "src/runtime/workqueue.h"

namespace quorum::runtime {
namespace {

struct Run {
  int workers;
  int keys;
  int rounds;  // each key is added this many times
};

struct Result {
  double seconds = 0;
  long adds = 0;
  long deliveries = 0;
  std::vector<absl::Duration> latencies;  // first delivery of each key
};

int KeyIndex(const std::string& key) {
  int k = 0;
  std::from_chars(key.data(), key.data() + key.size(), k);
  return k;
}

absl::Duration Percentile(std::vector<absl::Duration>& v, double p) {
  if (v.empty()) return absl::ZeroDuration();
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

double Us(absl::Duration d) { return absl::ToDoubleMicroseconds(d); }

Result Measure(const Run& run) {
  Registry registry;
  WorkQueue q(WorkQueue::Options{.name = "bench", .metrics = &registry});
  std::vector<std::string> names(run.keys);
  for (int k = 0; k < run.keys; ++k) names[k] = std::to_string(k);
  // The producer bumps a key's round before adding it; a worker reads the
  // round after Get(). A key is finished once processed at its last round,
  // which is when every add of it has been seen.
  std::vector<std::atomic<int>> round(run.keys), processed(run.keys);
  std::vector<absl::Time> added(run.keys);  // first add; published by the queue's mutex
  std::vector<absl::Duration> latencies(run.keys);
  std::atomic<int> finished{0};
  absl::Notification all_finished;
  std::atomic<long> deliveries{0};

  const absl::Time start = absl::Now();
  std::vector<std::thread> workers;
  for (int w = 0; w < run.workers; ++w) {
    workers.emplace_back([&] {
      while (std::optional<std::string> key = q.Get()) {
        const absl::Time got = absl::Now();
        const int k = KeyIndex(*key);
        const int r = round[k].load();
        if (processed[k].load() == 0) latencies[k] = got - added[k];
        if (r > processed[k].load()) {
          processed[k].store(r);  // a key is never with two workers: no CAS needed
          if (r == run.rounds && ++finished == run.keys) all_finished.Notify();
        }
        ++deliveries;
        q.Done(*key);
      }
    });
  }
  std::thread producer([&] {
    for (int r = 1; r <= run.rounds; ++r) {
      for (int k = 0; k < run.keys; ++k) {
        if (r == 1) added[k] = absl::Now();
        round[k].store(r);
        q.Add(names[k]);
      }
    }
  });
  producer.join();
  all_finished.WaitForNotification();
  const absl::Duration wall = absl::Now() - start;
  q.ShutDown();
  for (auto& t : workers) t.join();

  Result result;
  result.adds = static_cast<long>(run.keys) * run.rounds;
  result.deliveries = deliveries.load();
  result.seconds = absl::ToDoubleSeconds(wall);
  result.latencies = std::move(latencies);
  return result;
}

// The run of median duration out of `repeats`: the machine is shared.
Result MedianOf(int repeats, const Run& run) {
  std::vector<Result> results;
  for (int i = 0; i < repeats; ++i) results.push_back(Measure(run));
  std::sort(results.begin(), results.end(),
            [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
  return std::move(results[results.size() / 2]);
}

// Add→Get latency when the queue is idle: the worker is blocked in Get().
std::vector<absl::Duration> IdleLatencies(int samples) {
  WorkQueue q(WorkQueue::Options{.name = "idle"});
  absl::Mutex mu;
  int done = 0;  // guarded by mu
  std::vector<absl::Duration> latencies(samples);
  std::vector<absl::Time> added(samples);
  std::thread worker([&] {
    while (std::optional<std::string> key = q.Get()) {
      const int i = KeyIndex(*key);
      latencies[i] = absl::Now() - added[i];
      q.Done(*key);
      absl::MutexLock lock(&mu);
      done = i + 1;
    }
  });
  for (int i = 0; i < samples; ++i) {
    const std::string key = std::to_string(i);
    added[i] = absl::Now();
    q.Add(key);
    auto processed = [&done, i] { return done > i; };
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(&processed));
  }
  q.ShutDown();
  worker.join();
  return latencies;
}

void Print(const Run& run, Result r) {
  std::printf("%7d %7d %8d %8ld %10ld %10.0f %12.0f %8.2f", run.workers, run.keys, run.rounds,
              r.adds, r.deliveries, r.adds / r.seconds, r.deliveries / r.seconds,
              static_cast<double>(r.adds) / r.deliveries);
  if (run.rounds == 1) {
    std::printf(" %9.1f us %9.1f us\n", Us(Percentile(r.latencies, 0.5)),
                Us(Percentile(r.latencies, 0.99)));
  } else {
    std::printf(" %12s %12s\n", "-", "-");
  }
}

void Main() {
  constexpr int kRepeats = 5;
  std::printf("median of %d runs; 1 producer thread, metrics on, no work per item\n", kRepeats);
  std::printf("%7s %7s %8s %8s %10s %10s %12s %8s %12s %12s\n", "workers", "keys", "adds/key",
              "adds", "deliveries", "adds/s", "deliveries/s", "adds/dlv", "p50 add→get",
              "p99 add→get");
  for (const int keys : {1000, 100000}) {
    for (const int workers : {1, 2, 4}) {
      const Run run{workers, keys, 1};
      Print(run, MedianOf(kRepeats, run));
    }
  }
  for (const int workers : {1, 2, 4}) {
    const Run run{workers, 1000, 100};
    Print(run, MedianOf(kRepeats, run));
  }
  std::vector<absl::Duration> idle = IdleLatencies(10000);
  std::printf(
      "idle queue, 1 worker blocked in Get(): add→get p50 %.1f us, p99 %.1f us (%zu adds)\n",
      Us(Percentile(idle, 0.5)), Us(Percentile(idle, 0.99)), idle.size());
}

}  // namespace
}  // namespace quorum::runtime

int main() {
  quorum::runtime::Main();
  return 0;
}
