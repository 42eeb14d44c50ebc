// WorkQueue: the queue between event handlers and reconcile workers, with the
// semantics of client-go's workqueue (deduplicating, delaying, rate-limited).
//
// Contract:
// * A key is in the ready queue at most once: adding a queued key is a no-op.
// * A key is handed to at most one worker at a time. Adding a key while a
//   worker holds it (between Get() and Done()) marks it dirty; Done() then
//   puts it back in the ready queue, once, however many adds came meanwhile.
// * AddAfter() keeps delayed keys in a min-heap inside the queue (no thread
//   per key); of several delays pending for one key, the earliest wins.
// * AddRateLimited() delays a key by the larger of its own exponential
//   backoff (base_delay * 2^NumRequeues, capped at max_delay) and the wait
//   for a token of the overall bucket (qps, burst). Forget() resets the
//   backoff; call it when a key was processed successfully.
// * After ShutDown() Get() returns nullopt at once, adds are ignored and
//   pending keys (ready or delayed) are dropped. ShutDownWithDrain() does the
//   same, then waits until every key being processed is Done().
//
// Time: delays are measured on `Options::clock`, but waiting is done in real
// time on the queue's mutex. A Get() blocked until the earliest delayed key is
// due waits for (due - clock->Now()) of real time, which is exact for the real
// clock. With a FakeClock nothing observes Advance(), so a test calls Poke()
// after advancing: Poke() moves the keys that are due to the ready queue and
// wakes blocked Get() calls to re-read the clock. Due keys are also moved on
// every Add*, Get, Done and Poke; Len() only counts, it never moves keys.
//
// Thread-safety: every method may be called concurrently from any thread.
// The queue starts no thread. Destroy it only once no call is in progress.
#ifndef QUORUM_SRC_RUNTIME_WORKQUEUE_H_
#define QUORUM_SRC_RUNTIME_WORKQUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/clock.h"
#include "src/kube/rate_limiter.h"
#include "src/runtime/metrics.h"

namespace quorum::runtime {

class WorkQueue {
 public:
  struct Options {
    std::string name;  // the `name` label of the metrics
    // Per-key backoff of AddRateLimited(): base_delay * 2^requeues, capped.
    absl::Duration base_delay = absl::Milliseconds(5);
    absl::Duration max_delay = absl::Seconds(1000);
    // Overall token bucket of AddRateLimited(); qps <= 0 means unlimited.
    double qps = 10;
    int burst = 100;
    Clock* clock = nullptr;       // nullptr: RealClock(); must outlive the queue
    Registry* metrics = nullptr;  // optional; must outlive the queue
  };

  explicit WorkQueue(Options options);
  ~WorkQueue();  // ShutDown()
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Makes `key` ready unless it is already queued; if a worker holds it, it
  // is re-queued when that worker calls Done().
  void Add(const std::string& key);
  // Add()s `key` once `delay` has passed on the clock (delay <= 0: now).
  void AddAfter(const std::string& key, absl::Duration delay);
  // AddAfter(key, max(per-key backoff, overall bucket wait)); counts a retry.
  void AddRateLimited(const std::string& key);
  // Resets the per-key backoff of `key`.
  void Forget(const std::string& key);
  // How many times AddRateLimited(key) was called since the last Forget(key).
  int NumRequeues(const std::string& key) const;

  // Blocks until a key is ready and hands it to the caller, who must call
  // Done(key) when finished. Returns nullopt once the queue is shut down.
  std::optional<std::string> Get();
  // Ends the processing of a key returned by Get(). Ignores unknown keys.
  void Done(const std::string& key);

  // Wakes blocked Get() calls to re-read the clock after a FakeClock moved.
  void Poke();

  void ShutDown();
  // Shuts down (Get() returns nullopt from now on) and then waits until all
  // keys being processed are Done(), or until ShutDown() is called.
  void ShutDownWithDrain();
  bool ShuttingDown() const;

  // Number of ready keys (neither delayed nor being processed).
  size_t Len() const;
  // No key is ready and none is being processed (delayed keys may wait):
  // what tests wait for instead of sleeping until a controller has settled.
  bool Idle() const;

 private:
  // What the queue knows of a key that is ready, or being processed, or both.
  struct Item {
    bool dirty = false;       // needs processing: queued, or re-queue on Done()
    bool processing = false;  // held by a worker
    absl::Time added;         // when it became dirty (queue duration metric)
    absl::Time started;       // when Get() returned it (work duration metric)
  };
  struct Delayed {
    absl::Time due;
    uint64_t seq;  // orders keys due at the same time first-in first-out
    std::string key;
    bool operator>(const Delayed& o) const { return due != o.due ? due > o.due : seq > o.seq; }
  };
  struct Metrics;

  void AddLocked(const std::string& key, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PromoteDueLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Duration Backoff(const std::string& key);
  void SetDepthLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ShutDownLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Clock time, read only when metrics or delayed keys need it.
  absl::Time NowIfNeededLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  Clock& clock_;
  kube::TokenBucket bucket_;
  const std::unique_ptr<Metrics> metrics_;

  mutable absl::Mutex mu_;
  std::deque<std::string> ready_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, Item> items_ ABSL_GUARDED_BY(mu_);
  int processing_ ABSL_GUARDED_BY(mu_) = 0;
  // Delayed keys: the heap may hold stale entries (a key whose delay was
  // shortened later); `due_` has the one that counts.
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> delayed_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, absl::Time> due_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  // Bumped to make blocked Get() calls recompute their deadline.
  uint64_t wake_generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, int> requeues_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_WORKQUEUE_H_
