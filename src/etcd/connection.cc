#include "src/etcd/connection.h"

#include <cstdlib>
#include <mutex>
#include <utility>

#include "etcd/api/etcdserverpb/rpc.grpc.pb.h"
#include "src/etcd/endpoint.h"
#include "src/etcd/process.h"

namespace quorum::etcd::internal {
namespace {

grpc::ChannelArguments ChannelArgs() {
  grpc::ChannelArguments args;
  // A member that restarts is reachable again within 2 s (gRPC's default
  // backoff grows to 2 minutes, and calls fail at once meanwhile). Not
  // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: that one is the connect timeout.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  // Own connections per channel: a new channel after a failure (see
  // ReleaseIfBroken) must not inherit the failed one's connection state.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Pings on open streams only (a parked watch), every 30 s: etcd permits
  // one every 5 s (--grpc-keepalive-min-time) and none without a stream.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetUserAgentPrefix("quorum-etcd");
  return args;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::Create(const ClientConfig& config) {
  for (const std::string& e : config.endpoints) {
    if (absl::StatusOr<Endpoint> parsed = ParseEndpoint(e); !parsed.ok()) return parsed.status();
  }
  UseNativeNameResolution();
  auto conn = std::unique_ptr<Connection>(new Connection(config));
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = config.ca_pem;  // empty: gRPC's default roots (the system's)
  tls.pem_cert_chain = config.cert_pem;
  tls.pem_private_key = config.key_pem;
  conn->tls_credentials_ = grpc::SslCredentials(tls);
  return conn;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> Connection::ChannelTo(std::string_view endpoint) {
  absl::MutexLock lock(&mu_);
  if (auto it = channels_.find(endpoint); it != channels_.end()) return it->second;
  absl::StatusOr<Endpoint> parsed = ParseEndpoint(endpoint);
  if (!parsed.ok()) return parsed.status();
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
      parsed->target, parsed->tls ? tls_credentials_ : grpc::InsecureChannelCredentials(),
      ChannelArgs());
  channels_.emplace(std::string(endpoint), channel);
  return channel;
}

void Connection::ReleaseIfBroken(std::string_view endpoint,
                                 const std::shared_ptr<grpc::Channel>& channel,
                                 const absl::Status& s) {
  if (!absl::IsUnavailable(s) && !absl::IsDeadlineExceeded(s)) return;
  const grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/false);
  if (state == GRPC_CHANNEL_READY || state == GRPC_CHANNEL_IDLE) return;
  absl::MutexLock lock(&mu_);
  if (auto it = channels_.find(endpoint); it != channels_.end() && it->second == channel) {
    channels_.erase(it);
  }
}

size_t Connection::preferred() const {
  absl::MutexLock lock(&mu_);
  return preferred_;
}

void Connection::set_preferred(size_t index) {
  absl::MutexLock lock(&mu_);
  preferred_ = index;
}

absl::StatusOr<Credentials> Connection::AddCredentials(grpc::ClientContext& ctx) {
  if (!uses_token()) return Credentials{};
  for (;;) {
    uint64_t generation = 0;
    {
      absl::MutexLock lock(&mu_);
      generation = token_generation_;
      if (token_known_) {
        if (!token_.empty()) ctx.AddMetadata("token", token_);
        return Credentials{.generation = generation, .token = !token_.empty()};
      }
    }
    if (absl::Status s = Authenticate(generation); !s.ok()) return s;
  }
}

void Connection::InvalidateToken(uint64_t generation) {
  absl::MutexLock lock(&mu_);
  if (token_generation_ == generation) token_known_ = false;
}

void Connection::ForgetToken() {
  absl::MutexLock lock(&mu_);
  token_known_ = false;
}

absl::Status Connection::Authenticate(uint64_t stale_generation) {
  absl::MutexLock auth_lock(&auth_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (token_known_ && token_generation_ != stale_generation) return absl::OkStatus();
  }
  etcdserverpb::AuthenticateRequest req;
  req.set_name(config_.username);
  req.set_password(config_.password);
  absl::Status last = absl::UnavailableError("etcd authenticate: no endpoint answered");
  for (const std::string& endpoint : config_.endpoints) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = ChannelTo(endpoint);
    if (!channel.ok()) return channel.status();
    etcdserverpb::Auth::Stub stub(*channel);
    grpc::ClientContext ctx;  // without a token: a stale one must not spoil this call
    ctx.set_deadline(DeadlineIn(config_.timeout));
    etcdserverpb::AuthenticateResponse resp;
    const absl::Status s =
        StatusOf(stub.Authenticate(&ctx, req, &resp), absl::StrCat("authenticate on ", endpoint));
    if (!s.ok() && Reason(s) != kReasonAuthNotEnabled) {
      ReleaseIfBroken(endpoint, *channel, s);
      if (absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s)) {
        last = s;
        continue;
      }
      return s;
    }
    if (s.ok() && resp.token().empty()) {
      return absl::InternalError(absl::StrCat("authenticate on ", endpoint, ": no token"));
    }
    absl::MutexLock lock(&mu_);
    token_ = s.ok() ? resp.token() : "";  // empty when auth is off: send none
    token_known_ = true;
    ++token_generation_;
    return absl::OkStatus();
  }
  return last;
}

}  // namespace quorum::etcd::internal

namespace quorum::etcd {

// gRPC reads the setting once, when it starts; an explicit one in the
// environment wins.
void UseNativeNameResolution() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("GRPC_DNS_RESOLVER", "native", /*overwrite=*/0); });
}

}  // namespace quorum::etcd
