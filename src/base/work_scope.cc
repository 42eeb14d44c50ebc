#include "src/base/work_scope.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace quorum {
namespace {
thread_local const WorkScope* current_scope = nullptr;
}  // namespace

WorkScope::WorkScope(const Cancellation* cancel, absl::Time deadline)
    : cancel_(cancel),
      deadline_(current_scope == nullptr ? deadline
                                         : std::min(deadline, current_scope->deadline())),
      outer_(current_scope) {
  current_scope = this;
}

WorkScope::~WorkScope() { current_scope = outer_; }

const WorkScope* WorkScope::Current() { return current_scope; }

absl::Status CheckCurrentWork(std::string_view what) {
  const WorkScope* scope = WorkScope::Current();
  if (scope == nullptr) return absl::OkStatus();
  if (scope->cancelled()) {
    return absl::CancelledError(
        absl::StrCat(std::string(what), ": not sent, the work was cancelled"));
  }
  if (absl::Now() >= scope->deadline()) {
    return absl::DeadlineExceededError(
        absl::StrCat(std::string(what), ": not sent, the work is past its deadline"));
  }
  return absl::OkStatus();
}

absl::Duration CapToCurrentDeadline(absl::Duration timeout) {
  const WorkScope* scope = WorkScope::Current();
  if (scope == nullptr || scope->deadline() == absl::InfiniteFuture()) return timeout;
  const absl::Duration left = std::max(scope->deadline() - absl::Now(), absl::Milliseconds(1));
  if (timeout <= absl::ZeroDuration()) return left;  // zero: no timeout of its own
  return std::min(timeout, left);
}

}  // namespace quorum
