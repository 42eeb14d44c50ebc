// Connection: the gRPC half of etcd::Client, internal to src/etcd. Only
// client*.cc, watch.cc and snapshot.cc include it: it brings in gRPC's and
// the generated protos' headers, which no public header does.
//
// One channel per endpoint, made on first use and kept while it works; it
// sends keepalive pings on open streams, so a vanished peer ends a watch.
// A channel whose connection failed is dropped (ReleaseIfBroken) and the next
// call makes a new one that connects at once: gRPC's own reconnection of a
// failed channel runs in the background, where nothing drives it but a
// 5-second backup poller, while calls on it fail at once.
// Credentials: for https endpoints TLS with the configured CA (none: the
// system's roots) and client certificate; none for http.
//
// Auth: with a username, a token from Auth.Authenticate travels as the
// "token" metadata of every call; it is fetched before the first call and
// again once when etcd calls it invalid or stale. Without a username no token
// is sent: an etcd running with --client-cert-auth then takes the user from
// the client certificate's CommonName (a certificate with CN=root acts as
// root), and otherwise refuses with UserEmpty once auth is on.
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_ETCD_CONNECTION_H_
#define QUORUM_SRC_ETCD_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/strings.h"
#include "src/etcd/client.h"
#include "src/etcd/errors.h"

namespace quorum::etcd::internal {

// A synchronous unary method of a generated stub, e.g. &etcdserverpb::KV::Stub::Range.
template <typename Stub, typename Req, typename Resp>
using UnaryMethod = grpc::Status (Stub::*)(grpc::ClientContext*, const Req&, Resp*);

// The status of a finished call, mapped as errors.h says.
inline absl::Status StatusOf(const grpc::Status& s, std::string_view what) {
  return StatusFromGrpc(static_cast<int>(s.error_code()), s.error_message(), what);
}

// What AddCredentials put into a call.
struct Credentials {
  uint64_t generation = 0;  // of the token used, for InvalidateToken
  bool token = false;       // a token was sent (false also when auth was off)
};

class Connection {
 public:
  // InvalidArgument for a malformed endpoint. No I/O happens here.
  static absl::StatusOr<std::unique_ptr<Connection>> Create(const ClientConfig& config);

  // The channel to `endpoint` (a client URL; need not be a configured one).
  // InvalidArgument for a malformed URL.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> ChannelTo(std::string_view endpoint);

  // Drops `channel` (the one ChannelTo gave for `endpoint`) when `s`, the
  // status of a call on it, says it could not connect.
  void ReleaseIfBroken(std::string_view endpoint, const std::shared_ptr<grpc::Channel>& channel,
                       const absl::Status& s);

  // Puts the credentials into `ctx`: the token when a username is configured
  // (authenticating first when none is at hand). Errors: those of
  // Authenticate.
  absl::StatusOr<Credentials> AddCredentials(grpc::ClientContext& ctx);
  // Whether `s`, the status of a call made with `used`, may be fixed by
  // authenticating again: etcd called the token stale, or the call went
  // without a token (auth was off when last asked) and etcd refused it. Over
  // TLS with --client-cert-auth etcd refuses such a call with
  // PermissionDenied (it looks the certificate's CommonName up as the user),
  // not with UserEmpty.
  bool NeedsNewToken(const absl::Status& s, const Credentials& used) const {
    return uses_token() && (IsStaleToken(s) || (!used.token && (absl::IsPermissionDenied(s) ||
                                                                absl::IsUnauthenticated(s))));
  }
  // Drops the token of `generation` (if still current): the next call
  // authenticates again.
  void InvalidateToken(uint64_t generation);
  void ForgetToken();
  bool uses_token() const { return !config_.username.empty(); }

  // One unary call to exactly `endpoint` within `timeout`, repeated once with
  // a fresh token when etcd calls the token stale.
  template <typename Stub, typename Req, typename Resp>
  absl::StatusOr<Resp> CallOn(std::string_view endpoint, UnaryMethod<Stub, Req, Resp> method,
                              const Req& req, std::string_view what, absl::Duration timeout);

  // CallOn over the configured endpoints, starting with the last one that
  // answered; moves on when an endpoint is unavailable, and also after a
  // timeout when `idempotent` (see client.h).
  template <typename Stub, typename Req, typename Resp>
  absl::StatusOr<Resp> Call(UnaryMethod<Stub, Req, Resp> method, const Req& req,
                            std::string_view what, bool idempotent, absl::Duration timeout);

 private:
  explicit Connection(const ClientConfig& config) : config_(config) {}
  // Obtains a token (or learns that auth is off) unless another thread
  // already replaced the one of `stale_generation`. Unauthenticated with
  // AuthFailed for wrong credentials; Unavailable when no endpoint answered.
  absl::Status Authenticate(uint64_t stale_generation);
  size_t preferred() const;
  void set_preferred(size_t index);

  const ClientConfig& config_;  // the owning Client's
  std::shared_ptr<grpc::ChannelCredentials> tls_credentials_;
  absl::Mutex auth_mu_ ABSL_ACQUIRED_BEFORE(mu_);  // one authentication at a time
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>, std::less<>> channels_ ABSL_GUARDED_BY(mu_);
  std::string token_ ABSL_GUARDED_BY(mu_);
  bool token_known_ ABSL_GUARDED_BY(mu_) = false;  // authenticated, or auth is off
  uint64_t token_generation_ ABSL_GUARDED_BY(mu_) = 0;
  size_t preferred_ ABSL_GUARDED_BY(mu_) = 0;  // index of the last endpoint that answered
};

inline std::chrono::system_clock::time_point DeadlineIn(absl::Duration timeout) {
  return std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout);
}

template <typename Stub, typename Req, typename Resp>
absl::StatusOr<Resp> Connection::CallOn(std::string_view endpoint,
                                        UnaryMethod<Stub, Req, Resp> method, const Req& req,
                                        std::string_view what, absl::Duration timeout) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ChannelTo(endpoint);
  if (!channel.ok()) return channel.status();
  Stub stub(*channel);
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext ctx;
    ctx.set_deadline(DeadlineIn(timeout));
    absl::StatusOr<Credentials> used = AddCredentials(ctx);
    if (!used.ok()) return used.status();
    Resp resp;
    absl::Status s = StatusOf((stub.*method)(&ctx, req, &resp), what);
    if (s.ok()) return resp;
    ReleaseIfBroken(endpoint, *channel, s);
    if (attempt > 0 || !NeedsNewToken(s, *used)) return s;
    InvalidateToken(used->generation);
  }
}

template <typename Stub, typename Req, typename Resp>
absl::StatusOr<Resp> Connection::Call(UnaryMethod<Stub, Req, Resp> method, const Req& req,
                                      std::string_view what, bool idempotent,
                                      absl::Duration timeout) {
  const size_t n = config_.endpoints.size();
  const size_t start = preferred();
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kDeadlineExceeded;
  for (size_t i = 0; i < n; ++i) {
    const size_t idx = (start + i) % n;
    const std::string& endpoint = config_.endpoints[idx];
    absl::StatusOr<Resp> r =
        CallOn(endpoint, method, req, absl::StrCat(Absl(what), " on ", endpoint), timeout);
    const bool fail_over =
        absl::IsUnavailable(r.status()) || (idempotent && absl::IsDeadlineExceeded(r.status()));
    if (r.ok() || !fail_over) {
      set_preferred(idx);
      return r;
    }
    if (n == 1) return r.status();
    if (absl::IsUnavailable(r.status())) code = absl::StatusCode::kUnavailable;
    failures.emplace_back(r.status().message());
  }
  return absl::Status(
      code,
      absl::StrCat(Absl(what), ": no endpoint could serve it: ", absl::StrJoin(failures, "; ")));
}

}  // namespace quorum::etcd::internal

#endif  // QUORUM_SRC_ETCD_CONNECTION_H_
