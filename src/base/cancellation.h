// Cancellation: a one-shot signal that stops long operations (watch streams,
// backoff sleeps) promptly. Cancel() runs every registered wake-up callback
// so that a thread blocked in I/O notices at once.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_BASE_CANCELLATION_H_
#define QUORUM_SRC_BASE_CANCELLATION_H_

#include <functional>
#include <map>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace quorum {

class Cancellation {
 public:
  void Cancel();
  bool cancelled() const;
  // Waits up to `d` of real time; returns true if cancelled meanwhile.
  bool WaitFor(absl::Duration d) const;

  // Registers `wake` to be called (once) on Cancel(); called at once if
  // already cancelled. Returns an id for Unregister().
  int Register(std::function<void()> wake);
  void Unregister(int id);

 private:
  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  // Wakers run under wake_mu_, so Unregister() returning means the callback
  // is not running and will not run.
  absl::Mutex wake_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  int next_id_ ABSL_GUARDED_BY(wake_mu_) = 0;
  std::map<int, std::function<void()>> wakers_ ABSL_GUARDED_BY(wake_mu_);
};

// RAII registration of a wake-up callback.
class CancellationRegistration {
 public:
  CancellationRegistration(Cancellation* c, std::function<void()> wake)
      : c_(c), id_(c ? c->Register(std::move(wake)) : -1) {}
  ~CancellationRegistration() {
    if (c_) c_->Unregister(id_);
  }
  CancellationRegistration(const CancellationRegistration&) = delete;
  CancellationRegistration& operator=(const CancellationRegistration&) = delete;

 private:
  Cancellation* c_;
  int id_;
};

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_CANCELLATION_H_
