// Reconciler: the contract every controller implements, as in
// controller-runtime. Reconcile(request) reads the current state (from the
// cache), makes the world match the spec, and returns
//   Result{}                       done: forget the request until it changes
//   Result{.requeue_after = d}     done for now: look again after d
//   Result{.requeue = true}        again soon, with per-item backoff
//   an error status                failed: retry with per-item backoff
//   TerminalError(status)          failed for good: log and do not retry
// It must be idempotent and level-triggered (never branch on what event
// caused it). Implementations must be safe to call from several workers for
// different requests at once; one request is never reconciled concurrently.
#ifndef QUORUM_SRC_RUNTIME_RECONCILER_H_
#define QUORUM_SRC_RUNTIME_RECONCILER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace quorum::runtime {

// The object to reconcile: namespace ("" if cluster-scoped) and name.
struct Request {
  std::string ns;
  std::string name;

  std::string Key() const { return ns.empty() ? name : ns + "/" + name; }
  static Request FromKey(std::string_view key);
  bool operator==(const Request&) const = default;
  bool operator<(const Request& o) const { return Key() < o.Key(); }
};

struct Result {
  bool requeue = false;
  absl::Duration requeue_after = absl::ZeroDuration();
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  virtual absl::StatusOr<Result> Reconcile(const Request& request) = 0;
};

// Marks an error as terminal: the controller records it and does not retry
// (until the object changes again).
absl::Status TerminalError(absl::Status status);
bool IsTerminal(const absl::Status& status);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_RECONCILER_H_
