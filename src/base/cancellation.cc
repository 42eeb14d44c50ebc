#include "src/base/cancellation.h"

namespace quorum {

void Cancellation::Cancel() {
  absl::MutexLock wake_lock(&wake_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return;
    cancelled_ = true;
  }
  for (auto& [id, fn] : wakers_) fn();
}

bool Cancellation::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

bool Cancellation::WaitFor(absl::Duration d) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&cancelled_), d);
}

int Cancellation::Register(std::function<void()> wake) {
  absl::MutexLock wake_lock(&wake_mu_);
  if (cancelled()) {
    wake();
    return -1;
  }
  wakers_.emplace(next_id_, std::move(wake));
  return next_id_++;
}

void Cancellation::Unregister(int id) {
  absl::MutexLock wake_lock(&wake_mu_);
  wakers_.erase(id);
}

}  // namespace quorum
