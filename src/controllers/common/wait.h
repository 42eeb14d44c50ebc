// How long a reconciler waits before looking again at what no watch event
// signals (etcd member health, a learner catching up, a Patroni role):
// capped exponential backoff per object, 1 s, 2 s, 4 s ... 5 min, restarted
// whenever the thing waited for changes. The backoff grows with the time
// already spent waiting, not with the number of looks: the watches reconcile
// an object many times while its pods start, and counting those looks would
// push the next one far beyond what the wait so far justifies. What a pod or StatefulSet event
// signals is not polled at all: the watches requeue the object.
//
// Thread-safety: WaitBackoff is safe to share between workers.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_

#include <map>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/clock.h"

namespace quorum::controllers {

inline constexpr absl::Duration kFirstWait = absl::Seconds(1);
inline constexpr absl::Duration kMaxWait = absl::Minutes(5);
// A Secret named in a spec (a user's TLS or DCS credentials) is read through
// the API server and not watched (only the operator's own Secrets are cached):
// a missing one is looked for again with backoff capped here, so that a user
// who creates it late waits seconds, not minutes.
inline constexpr absl::Duration kMaxSecretWait = absl::Seconds(30);

// min(first * 2^attempt, max): pure.
absl::Duration BackoffDelay(int attempt, absl::Duration first = kFirstWait,
                            absl::Duration max = kMaxWait);

// `base` plus up to 10 % more, the same for one key every time: spreads the
// periodic refreshes of many objects instead of bunching them. Pure.
absl::Duration Spread(absl::Duration base, const std::string& key);

class WaitBackoff {
 public:
  // `clock` must outlive the backoff.
  explicit WaitBackoff(Clock& clock = RealClock()) : clock_(clock) {}

  // The next delay for `key` waiting on `what` (a sentence or a step kind):
  // as long as it has waited on `what` so far (since the first call with this
  // `what`), at least kFirstWait and at most `max`. So looks on a timer come
  // at about 1, 2, 4, 8 ... s into the wait, whatever events come between.
  absl::Duration Next(const std::string& key, const std::string& what,
                      absl::Duration max = kMaxWait);
  // Forgets `key` (it progressed, converged or went away).
  void Reset(const std::string& key);
  size_t size() const;

 private:
  struct Entry {
    std::string what;
    absl::Time since;
  };
  Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

// Holds a failed action back until its retry is due, whatever events wake
// the reconcile in between: a step etcd refused ("unhealthy cluster" while a
// new member starts) is tried again after its backoff, not on every pod
// event, and evented once per try.
class RetryGate {
 public:
  // `clock` must outlive the gate.
  explicit RetryGate(Clock& clock = RealClock()) : clock_(clock) {}

  // `what` failed for `key` with `error`; it may be tried again after `delay`.
  void Failed(const std::string& key, const std::string& what, const std::string& error,
              absl::Duration delay);
  struct Held {
    absl::Duration remaining;
    std::string error;  // the last try's
  };
  // Whether `what` must still wait for `key`; nullopt when it may be tried
  // (never failed, its retry is due, or another action failed since).
  std::optional<Held> Wait(const std::string& key, const std::string& what) const;
  // Forgets `key` (the action succeeded, or the object went away).
  void Reset(const std::string& key);
  size_t size() const;

 private:
  struct Entry {
    std::string what;
    std::string error;
    absl::Time retry_at;
  };
  Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_
