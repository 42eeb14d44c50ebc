// The messages of an etcd watch stream (etcdserverpb.WatchResponse) as the
// KeyWatcher (watch.h) reads them, and the status a cancelled watch stands
// for. Plain data and a pure function, thread-safe.
#ifndef QUORUM_SRC_ETCD_WATCH_MESSAGE_H_
#define QUORUM_SRC_ETCD_WATCH_MESSAGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace quorum::etcd {

struct KeyEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  std::string key;
  std::string value;         // empty for a delete
  int64_t mod_revision = 0;  // the revision of this change
  bool operator==(const KeyEvent&) const = default;
};

// One message of a watch stream.
struct WatchMessage {
  int64_t revision = 0;  // header.revision: the store's revision when sent
  bool created = false;  // the answer to the create request
  bool canceled = false;
  std::string cancel_reason;     // etcd's text, e.g. "etcdserver: permission denied"
  int64_t compact_revision = 0;  // > 0: the asked revision is compacted; resume here
  std::vector<KeyEvent> events;
};

// The status a cancelled watch stands for: its reason mapped like a failed
// call (errors.h: a stale token is Unauthenticated with IsStaleToken, a denied
// range PermissionDenied), OutOfRange for a compacted revision,
// FailedPrecondition when etcd gave no reason or one it does not know.
absl::Status CancelStatus(const WatchMessage& message, std::string_view what);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_WATCH_MESSAGE_H_
