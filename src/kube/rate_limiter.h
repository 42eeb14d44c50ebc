// TokenBucket: client-side QPS/burst limiting, like client-go's flowcontrol
// limiter. `burst` tokens fill at `qps` per second; Wait() takes one token,
// blocking (on the injected clock) until one is available.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_KUBE_RATE_LIMITER_H_
#define QUORUM_SRC_KUBE_RATE_LIMITER_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/clock.h"

namespace quorum::kube {

class TokenBucket {
 public:
  // qps <= 0 means unlimited. `clock` must outlive the bucket.
  TokenBucket(double qps, int burst, Clock& clock);

  // Takes a token without waiting; false if none is available.
  bool TryAccept();
  // Reserves a token and returns how long the caller must wait before using
  // it (zero when one was available). Never blocks.
  absl::Duration Reserve();
  // Reserve() and then sleep on the clock for the returned delay.
  void Wait();

 private:
  void RefillLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const double qps_;
  const double burst_;
  Clock& clock_;
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_RATE_LIMITER_H_
