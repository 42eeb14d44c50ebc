#include "src/kube/rate_limiter.h"

#include <algorithm>

namespace quorum::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Now()) {}

void TokenBucket::RefillLocked(absl::Time now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
  }
}

bool TokenBucket::TryAccept() {
  if (qps_ <= 0) return true;
  absl::MutexLock lock(&mu_);
  RefillLocked(clock_.Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

absl::Duration TokenBucket::Reserve() {
  if (qps_ <= 0) return absl::ZeroDuration();
  absl::MutexLock lock(&mu_);
  RefillLocked(clock_.Now());
  tokens_ -= 1;  // may go negative: later callers queue behind this one
  if (tokens_ >= 0) return absl::ZeroDuration();
  return absl::Seconds(-tokens_ / qps_);
}

void TokenBucket::Wait() {
  const absl::Duration d = Reserve();
  if (d > absl::ZeroDuration()) clock_.Sleep(d);
}

}  // namespace quorum::kube
