#include "src/etcd/watch_message.h"

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"

namespace quorum::etcd {

absl::Status CancelStatus(const WatchMessage& message, std::string_view what) {
  if (message.compact_revision > 0) {
    return absl::OutOfRangeError(absl::StrCat(Absl(what), ": required revision has been compacted",
                                              " (oldest kept: ", message.compact_revision, ")"));
  }
  if (message.cancel_reason.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(Absl(what), ": cancelled by etcd"));
  }
  // Code 9, FailedPrecondition: a reason etcd's error table does not know
  // keeps a code that says "not now" rather than "never".
  return StatusFromGrpc(9, message.cancel_reason, what);
}

}  // namespace quorum::etcd
