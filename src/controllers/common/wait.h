// How long a reconciler waits before looking again at what no watch event
// signals (etcd member health, a learner catching up, a Patroni role):
// capped exponential backoff per object, 1 s, 2 s, 4 s ... 5 min, restarted
// whenever the thing waited for changes. What a pod or StatefulSet event
// signals is not polled at all: the watches requeue the object.
//
// Thread-safety: WaitBackoff is safe to share between workers.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_

#include <map>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

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
  // The next delay for `key` waiting on `what` (a sentence or a step kind):
  // the first delay when `what` differs from the last call's, else double
  // the last one, capped at `max`.
  absl::Duration Next(const std::string& key, const std::string& what,
                      absl::Duration max = kMaxWait);
  // Forgets `key` (it progressed, converged or went away).
  void Reset(const std::string& key);
  size_t size() const;

 private:
  struct Entry {
    std::string what;
    int attempt = 0;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_WAIT_H_
