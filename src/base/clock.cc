#include "src/base/clock.h"

#include "absl/time/clock.h"

namespace quorum {
namespace {

class RealClockImpl : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  void Sleep(absl::Duration d) override { absl::SleepFor(d); }
};

}  // namespace

Clock& RealClock() {
  static RealClockImpl* clock = new RealClockImpl();  // intentionally leaked
  return *clock;
}

absl::Time FakeClock::Now() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

void FakeClock::Sleep(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  const absl::Time until = now_ + d;
  auto reached = [this, until]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return now_ >= until; };
  ++sleepers_;
  mu_.Await(absl::Condition(&reached));
  --sleepers_;
}

int FakeClock::sleepers() const {
  absl::MutexLock lock(&mu_);
  return sleepers_;
}

void FakeClock::Advance(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  now_ += d;
}

}  // namespace quorum
