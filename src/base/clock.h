// Clock: where Quorum's code gets the time. Production code uses RealClock();
// tests inject a FakeClock so that nothing depends on wall-clock time.
// Thread-safety: every method of every Clock is safe to call concurrently.
#ifndef QUORUM_SRC_BASE_CLOCK_H_
#define QUORUM_SRC_BASE_CLOCK_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace quorum {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // Blocks for `d` of this clock's time (a FakeClock returns when advanced).
  virtual void Sleep(absl::Duration d) = 0;
};

// The process-wide real clock; never null, never destroyed.
Clock& RealClock();

// A manually advanced clock for tests.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch() + absl::Hours(24 * 365 * 50))
      : now_(start) {}
  absl::Time Now() const override;
  // Returns once another thread has advanced the clock by at least `d`.
  void Sleep(absl::Duration d) override;
  void Advance(absl::Duration d);
  // How many threads are blocked in Sleep(), so tests can advance the clock
  // only once the sleeper is waiting.
  int sleepers() const;

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  int sleepers_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_CLOCK_H_
