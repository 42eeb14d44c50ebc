// Watching resources: a decoder for the API server's newline-delimited watch
// events, and a Watcher that keeps a watch open from a resourceVersion —
// following bookmarks, reconnecting with jittered exponential backoff when
// the stream ends or fails, stopping promptly on cancellation, and telling
// its caller to relist when the resourceVersion has expired (410 Gone).
#ifndef QUORUM_SRC_KUBE_WATCH_H_
#define QUORUM_SRC_KUBE_WATCH_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"

namespace quorum::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type;
  Json object;  // the object; for kError, the API Status
};

// Parses one event line; with `drop_managed_fields` the object comes without
// metadata.managedFields (left out before parsing: managed_fields.h).
// Errors: Internal naming the problem (bad JSON, unknown type, missing object).
absl::StatusOr<WatchEvent> ParseWatchEvent(std::string_view line, bool drop_managed_fields = false);

// Splits a byte stream into event lines, whatever the chunk boundaries.
// Thread-compatible.
class WatchDecoder {
 public:
  explicit WatchDecoder(bool drop_managed_fields = false)
      : drop_managed_fields_(drop_managed_fields) {}

  // Emits every complete event in `chunk`; stops early (returning OK) when
  // `emit` returns false. Errors: as ParseWatchEvent.
  absl::Status Feed(std::string_view chunk, const std::function<bool(WatchEvent)>& emit);
  // Bytes of an incomplete trailing line.
  size_t buffered() const { return buffer_.size(); }

 private:
  const bool drop_managed_fields_;
  std::string buffer_;
  std::string scratch_;  // a line without its managedFields
};

// Keeps one watch alive. Thread-compatible: one thread calls Run at a time;
// resource_version() may be read from any thread.
class Watcher {
 public:
  struct Options {
    ListOptions list;  // selectors; list.resource_version is where to start
    absl::Duration initial_backoff = absl::Milliseconds(800);
    absl::Duration max_backoff = absl::Seconds(30);
    // Each request asks the server to end it after a random time in
    // [min_timeout, 2*min_timeout), spreading reconnects like client-go.
    absl::Duration min_timeout = absl::Minutes(5);
    // Objects come without metadata.managedFields (for caches that drop it).
    bool drop_managed_fields = false;
    // Told of every failed attempt before the backoff sleep (for logs).
    std::function<void(const absl::Status&, absl::Duration backoff)> on_error;
  };

  Watcher(Client& client, GroupVersionResource gvr, std::string ns, Options options);

  // Delivers ADDED, MODIFIED and DELETED events to `handler` in order; a
  // BOOKMARK only moves resource_version(). Returns:
  //   OutOfRange (IsGone) — the resourceVersion expired: relist, then call
  //                         set_resource_version() and Run again;
  //   Cancelled           — `cancel` fired;
  //   OK                  — `handler` returned false.
  // Everything else (stream closed, server or network errors) is retried
  // with backoff inside Run. The event is the handler's: it may move the
  // object out (the informer keeps it without a copy).
  absl::Status Run(const std::function<bool(WatchEvent&)>& handler, Cancellation& cancel);

  std::string resource_version() const;
  void set_resource_version(std::string rv);

 private:
  // One request; OK when the server closed the stream normally.
  absl::Status WatchOnce(const std::function<bool(WatchEvent&)>& handler, Cancellation& cancel,
                         bool& handler_stopped, bool& got_events);

  Client& client_;
  const GroupVersionResource gvr_;
  const std::string ns_;
  const Options options_;
  mutable absl::Mutex mu_;
  std::string resource_version_ ABSL_GUARDED_BY(mu_);
};

// The backoff after `current`: `initial` first, then doubling, capped at
// `max`. Pure.
absl::Duration NextBackoff(absl::Duration current, absl::Duration initial, absl::Duration max);
// `d` stretched by up to 25% using `unit_random` in [0, 1). Pure.
absl::Duration Jittered(absl::Duration d, double unit_random);

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_WATCH_H_
