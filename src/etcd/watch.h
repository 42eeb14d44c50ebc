// KeyWatcher: follows one etcd key, or a range of keys, through etcd's
// Watch gRPC stream (one stream per connection attempt, one watch on it), so
// that a change is known the moment etcd applies it, without polling.
//
//   * Resume: each (re)connection asks for the revision after the last one
//     seen (events, or progress notifications of an idle watch), so nothing
//     is missed or repeated across reconnects. When that revision has been
//     compacted the handler is told to resync (re-read what it follows) and
//     the watch resumes from the oldest revision etcd still keeps.
//   * Reconnects: when the stream ends or fails, the next endpoint is tried
//     after a jittered backoff (initial, doubling, capped) that restarts once
//     a stream is established.
//   * Auth: the Client's token (authenticating when needed); a watch that
//     etcd cancels for a stale token authenticates again at once.
//   * Cancellable: Run returns promptly when the Cancellation fires.
//
// An idle watch costs nothing but a parked stream: the thread in Run sleeps
// in gRPC's read, gRPC's keepalive pings (every 30 s, see connection.h) notice
// a vanished peer, and etcd's progress notifications (every 10 minutes by
// default) keep the resume revision fresh.
//
// Thread-safety: one thread calls Run at a time; next_revision() may be read
// from any thread.
#ifndef QUORUM_SRC_ETCD_WATCH_H_
#define QUORUM_SRC_ETCD_WATCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/etcd/client.h"
#include "src/etcd/keys.h"
#include "src/etcd/watch_message.h"

namespace quorum::etcd {

struct WatchOptions {
  std::string key;
  // "" follows just `key`; PrefixRangeEnd(key) (keys.h) every key under it.
  std::string range_end;
  int64_t start_revision = 0;  // 0: changes from now on
  absl::Duration initial_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(30);
  // Told of every failed attempt before the backoff sleep (for logs).
  std::function<void(const absl::Status&, absl::Duration backoff)> on_error;
  // Told each time a stream is established (etcd answered the create
  // request); for tests and logs.
  std::function<void(int64_t revision)> on_connected;
};

struct WatchUpdate {
  std::vector<KeyEvent> events;  // in revision order
  // Changes may have been missed (the resume revision was compacted): re-read
  // what is followed.
  bool resync = false;
};

class KeyWatcher {
 public:
  // `client` must outlive the watcher; its endpoints are tried in turn.
  KeyWatcher(Client& client, WatchOptions options);

  // Delivers updates in order until:
  //   Cancelled         — `cancel` fired;
  //   OK                — `handler` returned false;
  //   PermissionDenied  — the credentials may not read the range;
  //   InvalidArgument   — etcd refuses the request as malformed.
  // Everything else (stream closed, endpoint down, no leader, stale token,
  // bad answers) is retried inside Run.
  absl::Status Run(const std::function<bool(const WatchUpdate&)>& handler, Cancellation& cancel);

  // The revision the next connection starts from (0: none seen yet).
  int64_t next_revision() const { return next_revision_.load(); }

 private:
  // One stream on `endpoint`; OK when etcd closed it. Sets `stopped` when the
  // handler returned false and `established` when etcd created the watch.
  absl::Status WatchOnce(const std::string& endpoint,
                         const std::function<bool(const WatchUpdate&)>& handler,
                         Cancellation& cancel, bool& stopped, bool& established);

  Client& client_;
  const WatchOptions options_;
  std::atomic<int64_t> next_revision_;
};

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_WATCH_H_
