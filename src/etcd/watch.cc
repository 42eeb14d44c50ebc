#include "src/etcd/watch.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "etcd/api/etcdserverpb/rpc.grpc.pb.h"
#include "src/etcd/connection.h"
#include "src/etcd/errors.h"
#include "src/kube/watch.h"

namespace quorum::etcd {

namespace {

namespace pb = etcdserverpb;

WatchMessage FromProto(const pb::WatchResponse& r) {
  WatchMessage m{.revision = r.header().revision(),
                 .created = r.created(),
                 .canceled = r.canceled(),
                 .cancel_reason = r.cancel_reason(),
                 .compact_revision = r.compact_revision()};
  for (const mvccpb::Event& e : r.events()) {
    const bool put = e.type() == mvccpb::Event::PUT;
    m.events.push_back(KeyEvent{.type = put ? KeyEvent::Type::kPut : KeyEvent::Type::kDelete,
                                .key = e.kv().key(),
                                .value = put ? e.kv().value() : "",
                                .mod_revision = e.kv().mod_revision()});
  }
  return m;
}

}  // namespace

KeyWatcher::KeyWatcher(Client& client, WatchOptions options)
    : client_(client), options_(std::move(options)), next_revision_(options_.start_revision) {}

absl::Status KeyWatcher::WatchOnce(const std::string& endpoint,
                                   const std::function<bool(const WatchUpdate&)>& handler,
                                   Cancellation& cancel, bool& stopped, bool& established) {
  const std::string what = absl::StrCat("watch on ", endpoint);
  internal::Connection& conn = client_.connection();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = conn.ChannelTo(endpoint);
  if (!channel.ok()) return channel.status();
  grpc::ClientContext ctx;  // no deadline: a watch lasts
  absl::StatusOr<internal::Credentials> used = conn.AddCredentials(ctx);
  if (!used.ok()) return used.status();
  // Registered after ctx exists and unregistered before it goes.
  CancellationRegistration wake(&cancel, [&ctx] { ctx.TryCancel(); });
  pb::Watch::Stub stub(*channel);
  std::unique_ptr<grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>> stream =
      stub.Watch(&ctx);
  pb::WatchRequest req;
  pb::WatchCreateRequest* create = req.mutable_create_request();
  create->set_key(options_.key);
  create->set_range_end(options_.range_end);
  create->set_start_revision(next_revision_.load());
  create->set_progress_notify(true);  // an idle watch still learns the revision
  absl::Status ended;                 // why this side ended the stream
  pb::WatchResponse resp;
  bool reading = stream->Write(req);
  while (reading && stream->Read(&resp)) {
    WatchMessage m = FromProto(resp);
    if (m.canceled || m.compact_revision > 0) {
      if (m.compact_revision > 0) {
        // Resume from the oldest revision kept; the gap is the handler's to
        // cover by re-reading.
        next_revision_.store(m.compact_revision);
        if (!handler(WatchUpdate{.resync = true})) stopped = true;
      }
      ended = CancelStatus(m, what);
      break;
    }
    if (m.created) {
      established = true;
      if (next_revision_.load() == 0) next_revision_.store(m.revision + 1);
      if (options_.on_connected) options_.on_connected(m.revision);
    }
    if (m.events.empty()) {
      // A progress notification: every change up to its revision was sent.
      if (!m.created && m.revision >= next_revision_.load()) next_revision_.store(m.revision + 1);
      continue;
    }
    next_revision_.store(m.events.back().mod_revision + 1);
    if (!handler(WatchUpdate{.events = std::move(m.events)})) {
      stopped = true;
      break;
    }
  }
  ctx.TryCancel();  // ends the stream when this side stopped reading first
  const grpc::Status finished = stream->Finish();
  if (stopped) return absl::OkStatus();
  absl::Status s = ended.ok() ? internal::StatusOf(finished, what) : ended;
  conn.ReleaseIfBroken(endpoint, *channel, s);
  if (!s.ok() && !IsStaleToken(s) && conn.NeedsNewToken(s, *used)) {
    // Auth came on since the client learnt it was off: Run authenticates
    // again, as for a stale token.
    return absl::UnauthenticatedError(
        absl::StrCat(what, ": sent without a token (auth was off): ", s.message()));
  }
  return s;
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
    if (absl::IsUnauthenticated(s) && !retried_token) {     // stale token, or none
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
