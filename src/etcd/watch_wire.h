// The wire format of etcd's watch over the v3 JSON gateway (POST /v3/watch):
// the create request, the stream's framing and its messages. The gateway
// answers with a stream of JSON objects, one per WatchResponse, each wrapped
// as {"result": {...}} (or {"error": {...}} when the stream fails); 64-bit
// integers travel as decimal strings, keys and values as base64, and zero
// fields are omitted (a PUT event has no "type").
//
// Pure functions and a thread-compatible framer, kept apart from the I/O so
// that split chunks and malformed answers can be tested.
#ifndef QUORUM_SRC_ETCD_WATCH_WIRE_H_
#define QUORUM_SRC_ETCD_WATCH_WIRE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/etcd/wire.h"

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

namespace wire {

// The body that opens a watch on [key, range_end) (range_end "" means just
// `key`) from `start_revision` (0: from now on). Progress notifications make
// an idle stream carry the store's revision now and then.
std::string WatchCreateRequest(std::string_view key, std::string_view range_end,
                               int64_t start_revision);

// PrefixRangeEnd (the range_end covering every key under a prefix) is in wire.h.

// Parses one object of the stream. Errors: Internal when it is not JSON or
// has neither "result" nor "error"; the gateway's {"error": {...}} becomes
// the status etcd's code and message give (see errors.h), e.g.
// Unauthenticated for a stale token.
absl::StatusOr<WatchMessage> ParseWatchMessage(std::string_view object);

// The status a cancelled watch stands for: its reason mapped like an error
// answer (a stale token is Unauthenticated with IsStaleToken, a denied range
// PermissionDenied, a compacted revision OutOfRange), FailedPrecondition
// when etcd gave no reason.
absl::Status CancelStatus(const WatchMessage& message, std::string_view what);

}  // namespace wire

// Splits the stream's bytes into whole top-level JSON objects, whatever the
// chunk boundaries and whatever separates the objects (newlines or nothing).
// Thread-compatible.
class WatchFramer {
 public:
  // Calls `emit` with every complete object in what was fed so far; stops
  // early when `emit` returns false. Errors: Internal when an object grows
  // past `max_object` bytes or the stream holds something that is not an
  // object (the stream cannot be trusted after either).
  absl::Status Feed(std::string_view chunk, const std::function<bool(std::string_view)>& emit);
  size_t buffered() const { return buffer_.size(); }

  static constexpr size_t kMaxObject = 16 << 20;

 private:
  std::string buffer_;
  size_t scanned_ = 0;  // bytes of buffer_ already scanned
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_WATCH_WIRE_H_
