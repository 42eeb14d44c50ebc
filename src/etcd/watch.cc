#include "src/etcd/watch.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/etcd/errors.h"
#include "src/kube/watch.h"

namespace quorum::etcd {

KeyWatcher::KeyWatcher(Client& client, WatchOptions options)
    : client_(client), options_(std::move(options)), next_revision_(options_.start_revision) {}

absl::Status KeyWatcher::WatchOnce(const std::string& endpoint,
                                   const std::function<bool(const WatchUpdate&)>& handler,
                                   Cancellation& cancel, bool& stopped, bool& established) {
  const std::string what = absl::StrCat("watch on ", endpoint);
  WatchFramer framer;
  absl::Status ended;  // why this side ended the stream
  auto on_message = [&](std::string_view object) {
    absl::StatusOr<WatchMessage> m = wire::ParseWatchMessage(object);
    if (!m.ok()) {
      ended = absl::Status(m.status().code(), absl::StrCat(what, ": ", m.status().message()));
      return false;
    }
    if (m->canceled || m->compact_revision > 0) {
      if (m->compact_revision > 0) {
        // Resume from the oldest revision kept; the gap is the handler's to
        // cover by re-reading.
        next_revision_.store(m->compact_revision);
        if (!handler(WatchUpdate{.resync = true})) stopped = true;
      }
      ended = wire::CancelStatus(*m, what);
      return false;
    }
    if (m->created) {
      established = true;
      if (next_revision_.load() == 0) next_revision_.store(m->revision + 1);
      if (options_.on_connected) options_.on_connected(m->revision);
    }
    if (m->events.empty()) {
      // A progress notification: every change up to its revision was sent.
      if (!m->created && m->revision >= next_revision_.load()) {
        next_revision_.store(m->revision + 1);
      }
      return true;
    }
    next_revision_.store(m->events.back().mod_revision + 1);
    if (!handler(WatchUpdate{.events = std::move(m->events)})) {
      stopped = true;
      return false;
    }
    return true;
  };
  absl::StatusOr<kube::HttpResponse> resp = client_.Stream(
      endpoint, "/v3/watch",
      wire::WatchCreateRequest(options_.key, options_.range_end, next_revision_.load()),
      [&](std::string_view chunk) {
        absl::Status s = framer.Feed(chunk, on_message);
        if (!s.ok()) ended = absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
        return s.ok() && ended.ok() && !stopped;
      },
      &cancel);
  if (stopped) return absl::OkStatus();
  if (!ended.ok()) return ended;
  if (!resp.ok()) return resp.status();
  if (absl::Status s = StatusFromResponse(resp->code, resp->body, what); !s.ok()) return s;
  return absl::OkStatus();
}

absl::Status KeyWatcher::Run(const std::function<bool(const WatchUpdate&)>& handler,
                             Cancellation& cancel) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::vector<std::string>& endpoints = client_.config().endpoints;
  size_t index = 0;
  absl::Duration backoff = absl::ZeroDuration();
  bool retried_token = false;
  while (!cancel.cancelled()) {
    bool stopped = false, established = false;
    absl::Status s =
        WatchOnce(endpoints[index % endpoints.size()], handler, cancel, stopped, established);
    if (stopped) return absl::OkStatus();
    if (cancel.cancelled()) break;
    if (established) {
      backoff = absl::ZeroDuration();
      retried_token = false;
    }
    if (absl::IsPermissionDenied(s) || absl::IsInvalidArgument(s)) return s;
    if (IsCompacted(s) || absl::IsOutOfRange(s)) continue;  // resume at once from the new revision
    if (IsStaleToken(s) && !retried_token) {
      retried_token = true;
      client_.ForgetToken();
      continue;
    }
    if (s.ok())
      s = absl::UnavailableError(absl::StrCat("watch on ", endpoints[index % endpoints.size()],
                                              ": etcd closed the stream"));
    ++index;  // another member may serve it
    backoff = kube::NextBackoff(backoff, options_.initial_backoff, options_.max_backoff);
    const absl::Duration wait =
        kube::Jittered(backoff, std::uniform_real_distribution<double>(0, 1)(rng));
    if (options_.on_error) options_.on_error(s, wait);
    if (cancel.WaitFor(wait)) break;
  }
  return absl::CancelledError("watch cancelled");
}

}  // namespace quorum::etcd
