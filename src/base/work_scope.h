// WorkScope: the cancellation and deadline of the unit of work running on
// this thread (one reconcile), so that code deep below it — the kube, etcd
// and Patroni clients — stops when the work must stop, without threading a
// context through every signature.
//
// The controller opens a scope around each Reconcile call; it is cancelled
// when the operator loses its leader lease, so a reconcile that is still
// running cannot take a step that overlaps the new leader's. Every
// non-streaming request made through kube::Transport while a scope is open:
//   - is refused before it is sent once the scope is cancelled or past its
//     deadline (CheckCurrentWork below),
//   - has its timeout cut to the time left before the deadline, and
//   - is aborted mid-flight when the scope is cancelled (within ~1 s).
// Streams (watches) belong to informers, not to a reconcile, and ignore it.
//
// Scopes nest: the innermost one is current, and it is cancelled when any
// enclosing scope is, with the earliest deadline of them all. Thread-safety: a scope belongs
// to the thread that opened it; its Cancellation may be cancelled from any
// thread.
#ifndef QUORUM_SRC_BASE_WORK_SCOPE_H_
#define QUORUM_SRC_BASE_WORK_SCOPE_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"

namespace quorum {

class WorkScope {
 public:
  // `cancel` may be null (deadline only) and must outlive the scope;
  // absl::InfiniteFuture() means no deadline.
  WorkScope(const Cancellation* cancel, absl::Time deadline);
  ~WorkScope();
  WorkScope(const WorkScope&) = delete;
  WorkScope& operator=(const WorkScope&) = delete;

  // The innermost open scope of this thread, or null.
  static const WorkScope* Current();

  bool cancelled() const {
    return (cancel_ != nullptr && cancel_->cancelled()) ||
           (outer_ != nullptr && outer_->cancelled());
  }
  absl::Time deadline() const { return deadline_; }

 private:
  const Cancellation* const cancel_;
  const absl::Time deadline_;
  const WorkScope* const outer_;
};

// OK when no scope is open or the current one may go on; otherwise
// Cancelled or DeadlineExceeded, naming `what` (e.g. "GET /api/v1/pods").
absl::Status CheckCurrentWork(std::string_view what);

// `timeout` cut to the time left before the current scope's deadline (at
// least 1 ms, so that an expired deadline still fails fast rather than
// meaning "no timeout").
absl::Duration CapToCurrentDeadline(absl::Duration timeout);

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_WORK_SCOPE_H_
