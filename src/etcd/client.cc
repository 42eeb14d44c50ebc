#include "src/etcd/client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/clock.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"
#include "src/etcd/wire.h"

namespace quorum::etcd {
namespace {

std::string Trimmed(std::string_view endpoint) {
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.remove_suffix(1);
  return std::string(endpoint);
}

bool ShouldFailOver(const absl::Status& s, bool idempotent) {
  return absl::IsUnavailable(s) || (idempotent && absl::IsDeadlineExceeded(s));
}

}  // namespace

// --- Construction and transport -------------------------------------------

Client::Client(ClientConfig config) : config_(std::move(config)) {}
Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Create(ClientConfig config) {
  if (config.endpoints.empty()) return absl::InvalidArgumentError("etcd client: no endpoints");
  for (std::string& e : config.endpoints) e = Trimmed(e);
  if (config.timeout <= absl::ZeroDuration()) config.timeout = absl::Seconds(5);
  auto client = std::unique_ptr<Client>(new Client(std::move(config)));
  for (const std::string& e : client->config_.endpoints) {  // validates the URLs
    absl::StatusOr<std::unique_ptr<kube::Transport>> t = client->NewTransport(e, "");
    if (!t.ok()) return t.status();
  }
  return client;
}

absl::StatusOr<std::unique_ptr<kube::Transport>> Client::NewTransport(
    std::string_view endpoint, const std::string& token) const {
  kube::RestConfig rc;
  rc.server = std::string(endpoint);
  rc.ca_pem = config_.ca_pem;
  rc.client_cert_pem = config_.cert_pem;
  rc.client_key_pem = config_.key_pem;
  // kube::Transport sends "Authorization: Bearer <token>". etcd takes the bare
  // token; releases from mid-2026 (3.5/3.6/3.7 patch lines, e.g. 3.6.16) also
  // strip "Bearer ". Older releases need a bare header, which needs a
  // per-request header in kube::HttpRequest.
  rc.bearer_token = token;
  rc.timeout = config_.timeout;
  rc.user_agent = "quorum-etcd";
  return kube::Transport::Create(rc, RealClock());
}

absl::StatusOr<std::shared_ptr<kube::Transport>> Client::TransportFor(std::string_view endpoint,
                                                                      uint64_t* generation) {
  absl::MutexLock lock(&mu_);
  *generation = token_generation_;
  auto it = transports_.find(endpoint);
  if (it != transports_.end()) return it->second;
  absl::StatusOr<std::unique_ptr<kube::Transport>> t = NewTransport(endpoint, token_);
  if (!t.ok()) return t.status();
  std::shared_ptr<kube::Transport> shared = *std::move(t);
  transports_.emplace(std::string(endpoint), shared);
  return shared;
}

// --- Requests -----------------------------------------------------------------

absl::StatusOr<std::string> Client::PostOnce(std::string_view endpoint, std::string_view path,
                                             const std::string& body, std::string_view what,
                                             std::optional<absl::Duration> timeout,
                                             uint64_t* generation) {
  absl::StatusOr<std::shared_ptr<kube::Transport>> t = TransportFor(endpoint, generation);
  if (!t.ok()) return t.status();
  kube::HttpRequest req;
  req.method = "POST";
  req.path = std::string(path);
  req.body = body;
  req.content_type = "application/json";
  req.timeout = timeout;
  absl::StatusOr<kube::HttpResponse> resp = (*t)->Do(req);
  if (!resp.ok()) {
    return absl::Status(resp.status().code(),
                        absl::StrCat(Absl(what), ": ", resp.status().message()));
  }
  absl::Status s = StatusFromResponse(resp->code, resp->body, what);
  if (!s.ok()) return s;
  return std::move(resp->body);
}

void Client::InvalidateToken(uint64_t generation) {
  absl::MutexLock lock(&mu_);
  if (token_generation_ == generation) token_known_ = false;
}

absl::Status Client::Authenticate(uint64_t stale_generation) {
  absl::MutexLock auth_lock(&auth_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (token_known_ && token_generation_ != stale_generation) return absl::OkStatus();
  }
  const std::string body = wire::AuthenticateRequest(config_.username, config_.password);
  absl::Status last = absl::UnavailableError("etcd authenticate: no endpoint answered");
  for (const std::string& endpoint : config_.endpoints) {
    // Without a token: a stale one must not spoil the request that replaces it.
    absl::StatusOr<std::unique_ptr<kube::Transport>> t = NewTransport(endpoint, "");
    if (!t.ok()) return t.status();
    kube::HttpRequest req;
    req.method = "POST";
    req.path = "/v3/auth/authenticate";
    req.body = body;
    req.content_type = "application/json";
    const std::string what = absl::StrCat("authenticate on ", endpoint);
    absl::StatusOr<kube::HttpResponse> resp = (*t)->Do(req);
    absl::Status s = resp.ok() ? StatusFromResponse(resp->code, resp->body, what)
                               : absl::Status(resp.status().code(),
                                              absl::StrCat(what, ": ", resp.status().message()));
    std::string token;
    if (s.ok()) {
      absl::StatusOr<std::string> t = wire::ParseToken(resp->body);
      if (!t.ok()) return absl::InternalError(absl::StrCat(what, ": ", t.status().message()));
      token = *std::move(t);
    } else if (Reason(s) != kReasonAuthNotEnabled) {
      if (ShouldFailOver(s, /*idempotent=*/true)) {
        last = s;
        continue;
      }
      return s;
    }
    absl::MutexLock lock(&mu_);
    token_ = std::move(token);  // empty when auth is off: send none
    token_known_ = true;
    ++token_generation_;
    transports_.clear();
    return absl::OkStatus();
  }
  return last;
}

absl::StatusOr<std::string> Client::PostTo(std::string_view endpoint, std::string_view path,
                                           const std::string& body, std::string_view what,
                                           std::optional<absl::Duration> timeout) {
  uint64_t generation = 0;
  if (config_.username.empty()) return PostOnce(endpoint, path, body, what, timeout, &generation);
  for (int attempt = 0;; ++attempt) {
    bool known = false;
    {
      absl::MutexLock lock(&mu_);
      known = token_known_;
      generation = token_generation_;
    }
    if (!known) {
      absl::Status s = Authenticate(generation);
      if (!s.ok()) return s;
    }
    absl::StatusOr<std::string> r = PostOnce(endpoint, path, body, what, timeout, &generation);
    if (r.ok() || attempt > 0 || !IsStaleToken(r.status())) return r;
    InvalidateToken(generation);
  }
}

absl::StatusOr<std::string> Client::Post(std::string_view path, const std::string& body,
                                         std::string_view what, bool idempotent,
                                         std::optional<absl::Duration> timeout) {
  const size_t n = config_.endpoints.size();
  size_t start = 0;
  {
    absl::MutexLock lock(&mu_);
    start = preferred_;
  }
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kDeadlineExceeded;
  for (size_t i = 0; i < n; ++i) {
    const size_t idx = (start + i) % n;
    const std::string& endpoint = config_.endpoints[idx];
    absl::StatusOr<std::string> r =
        PostTo(endpoint, path, body, absl::StrCat(Absl(what), " on ", endpoint), timeout);
    if (r.ok() || !ShouldFailOver(r.status(), idempotent)) {
      absl::MutexLock lock(&mu_);
      preferred_ = idx;
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

absl::StatusOr<kube::HttpResponse> Client::Stream(
    std::string_view endpoint, std::string_view path, const std::string& body,
    const std::function<bool(std::string_view)>& on_data, Cancellation* cancel) {
  const std::string ep = Trimmed(endpoint);
  uint64_t generation = 0;
  if (!config_.username.empty()) {
    bool known = false;
    {
      absl::MutexLock lock(&mu_);
      known = token_known_;
      generation = token_generation_;
    }
    if (!known) {
      if (absl::Status s = Authenticate(generation); !s.ok()) return s;
    }
  }
  absl::StatusOr<std::shared_ptr<kube::Transport>> t = TransportFor(ep, &generation);
  if (!t.ok()) return t.status();
  kube::HttpRequest req;
  req.method = "POST";
  req.path = std::string(path);
  req.body = body;
  req.content_type = "application/json";
  return (*t)->Stream(req, on_data, cancel);  // no timeout: a stream lasts
}

void Client::ForgetToken() {
  absl::MutexLock lock(&mu_);
  token_known_ = false;
}

// --- Calls ----------------------------------------------------------------------

namespace {

// Parses a successful answer, naming the call in a parse error.
template <typename T>
absl::StatusOr<T> Parsed(const absl::StatusOr<std::string>& body,
                         absl::StatusOr<T> (*parse)(std::string_view), std::string_view what) {
  if (!body.ok()) return body.status();
  absl::StatusOr<T> out = parse(*body);
  if (!out.ok()) {
    return absl::Status(out.status().code(),
                        absl::StrCat(Absl(what), ": ", out.status().message()));
  }
  return out;
}

std::string MemberWhat(std::string_view verb, uint64_t id) {
  return absl::StrCat("member ", Absl(verb), " ", absl::Hex(id));
}

}  // namespace

absl::StatusOr<MemberListResponse> Client::MemberList(bool linearizable,
                                                      std::optional<absl::Duration> timeout) {
  return Parsed(Post("/v3/cluster/member/list", wire::MemberListRequest(linearizable),
                     "member list", /*idempotent=*/true, timeout),
                &wire::ParseMemberList, "member list");
}

absl::StatusOr<MemberAddResponse> Client::MemberAdd(const std::vector<std::string>& peer_urls,
                                                    bool is_learner) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member add: no peer URLs");
  return Parsed(Post("/v3/cluster/member/add", wire::MemberAddRequest(peer_urls, is_learner),
                     "member add", /*idempotent=*/false),
                &wire::ParseMemberAdd, "member add");
}

absl::Status Client::MemberRemove(uint64_t id) {
  return Post("/v3/cluster/member/remove", wire::MemberIdRequest(id), MemberWhat("remove", id),
              /*idempotent=*/false)
      .status();
}

absl::Status Client::MemberPromote(uint64_t id) {
  return Post("/v3/cluster/member/promote", wire::MemberIdRequest(id), MemberWhat("promote", id),
              /*idempotent=*/false)
      .status();
}

absl::Status Client::MemberUpdate(uint64_t id, const std::vector<std::string>& peer_urls) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member update: no peer URLs");
  return Post("/v3/cluster/member/update", wire::MemberUpdateRequest(id, peer_urls),
              MemberWhat("update", id), /*idempotent=*/true)
      .status();
}

absl::StatusOr<StatusResponse> Client::Status(std::string_view endpoint,
                                              std::optional<absl::Duration> timeout) {
  const std::string ep = Trimmed(endpoint);
  const std::string what = absl::StrCat("status of ", ep);
  return Parsed(PostTo(ep, "/v3/maintenance/status", "{}", what, timeout), &wire::ParseStatus,
                what);
}

absl::Status Client::MoveLeader(uint64_t target_id) {
  uint64_t leader = 0;
  absl::Status last = absl::UnavailableError("move leader: no member knows a leader");
  for (const std::string& endpoint : config_.endpoints) {
    absl::StatusOr<StatusResponse> s = Status(endpoint);
    if (s.ok() && s->leader != 0) {
      leader = s->leader;
      break;
    }
    if (!s.ok()) last = s.status();
  }
  if (leader == 0) return last;
  if (leader == target_id) return absl::OkStatus();
  absl::StatusOr<MemberListResponse> list = MemberList(/*linearizable=*/true);
  if (!list.ok()) return list.status();
  std::vector<std::string> urls;
  for (const Member& m : list->members) {
    if (m.id == leader) urls = m.client_urls;
  }
  if (urls.empty()) {
    return absl::UnavailableError(
        absl::StrCat("move leader: the leader ", absl::Hex(leader), " has no client URL"));
  }
  // Only the leader can hand leadership over.
  for (const std::string& url : urls) {
    const std::string ep = Trimmed(url);
    absl::StatusOr<std::string> r =
        PostTo(ep, "/v3/maintenance/transfer-leadership", wire::MoveLeaderRequest(target_id),
               absl::StrCat("move leader to ", absl::Hex(target_id), " on ", ep));
    if (r.ok() || !absl::IsUnavailable(r.status())) return r.status();
    last = r.status();
  }
  return last;
}

absl::StatusOr<std::vector<Alarm>> Client::Alarms() {
  return Parsed(Post("/v3/maintenance/alarm", R"({"action":"GET"})", "alarm list",
                     /*idempotent=*/true),
                &wire::ParseAlarms, "alarm list");
}

absl::Status Client::AlarmDisarm(const Alarm& alarm) {
  return Post("/v3/maintenance/alarm", wire::AlarmDisarmRequest(alarm),
              absl::StrCat("disarm alarm ", alarm.type, " of member ", absl::Hex(alarm.member_id)),
              /*idempotent=*/true)
      .status();
}

absl::Status Client::Compact(int64_t revision) {
  // Safe to repeat: a second compaction to the same revision is IsCompacted().
  return Post("/v3/kv/compaction", wire::CompactRequest(revision, /*physical=*/true),
              absl::StrCat("compact to revision ", revision), /*idempotent=*/true)
      .status();
}

absl::Status Client::Defragment(std::string_view endpoint) {
  const std::string ep = Trimmed(endpoint);
  return PostTo(ep, "/v3/maintenance/defragment", "{}", absl::StrCat("defragment ", ep),
                std::max(config_.timeout, absl::Minutes(1)))
      .status();
}

absl::StatusOr<int64_t> Client::Put(std::string_view key, std::string_view value) {
  return Parsed(Post("/v3/kv/put", wire::PutRequest(key, value), "put", /*idempotent=*/false),
                &wire::ParsePut, "put");
}

absl::StatusOr<GetResponse> Client::Get(std::string_view key) {
  return Parsed(Post("/v3/kv/range", wire::RangeRequest(key), "get", /*idempotent=*/true),
                &wire::ParseRange, "get");
}

absl::StatusOr<int64_t> Client::DeletePrefix(std::string_view prefix) {
  if (prefix.empty()) return absl::InvalidArgumentError("delete prefix: the prefix is empty");
  // Safe to repeat: a second delete of the same prefix removes nothing.
  return Parsed(Post("/v3/kv/deleterange", wire::DeletePrefixRequest(prefix), "delete prefix",
                     /*idempotent=*/true),
                &wire::ParseDeleted, "delete prefix");
}

absl::StatusOr<bool> Client::DeleteIfValue(std::string_view key, std::string_view value) {
  // Safe to repeat: once deleted, the compare fails and nothing changes.
  return Parsed(Post("/v3/kv/txn", wire::DeleteIfValueRequest(key, value), "delete if value",
                     /*idempotent=*/true),
                &wire::ParseTxnSucceeded, "delete if value");
}

absl::Status Client::UserAdd(std::string_view name, std::string_view password) {
  return Post("/v3/auth/user/add", wire::UserAddRequest(name, password),
              absl::StrCat("user add ", Absl(name)), /*idempotent=*/false)
      .status();
}

absl::Status Client::UserChangePassword(std::string_view name, std::string_view password) {
  // The request body has the same shape as user add's: {name, password}.
  return Post("/v3/auth/user/changepw", wire::UserAddRequest(name, password),
              absl::StrCat("change password of ", Absl(name)), /*idempotent=*/true)
      .status();
}

absl::Status Client::RoleAdd(std::string_view name) {
  return Post("/v3/auth/role/add", wire::RoleAddRequest(name),
              absl::StrCat("role add ", Absl(name)), /*idempotent=*/false)
      .status();
}

absl::Status Client::UserGrantRole(std::string_view user, std::string_view role) {
  return Post("/v3/auth/user/grant", wire::UserGrantRoleRequest(user, role),
              absl::StrCat("grant role ", Absl(role), " to ", Absl(user)), /*idempotent=*/true)
      .status();
}

absl::Status Client::RoleGrantPermission(std::string_view role, std::string_view key,
                                         std::string_view range_end, Permission permission) {
  return Post("/v3/auth/role/grant",
              wire::RoleGrantPermissionRequest(role, key, range_end, permission),
              absl::StrCat("grant permission to role ", Absl(role)), /*idempotent=*/true)
      .status();
}

absl::Status Client::UserDelete(std::string_view name) {
  absl::Status s = Post("/v3/auth/user/delete", wire::NameRequest(name),
                        absl::StrCat("user delete ", Absl(name)), /*idempotent=*/true)
                       .status();
  return Reason(s) == kReasonUserNotFound ? absl::OkStatus() : s;
}

absl::Status Client::RoleDelete(std::string_view name) {
  absl::Status s = Post("/v3/auth/role/delete", wire::RoleRequest(name),
                        absl::StrCat("role delete ", Absl(name)), /*idempotent=*/true)
                       .status();
  return Reason(s) == kReasonRoleNotFound ? absl::OkStatus() : s;
}

absl::StatusOr<std::vector<std::string>> Client::UserList() {
  return Parsed(Post("/v3/auth/user/list", "{}", "user list", /*idempotent=*/true),
                &wire::ParseUserNames, "user list");
}

absl::StatusOr<std::vector<std::string>> Client::RoleList() {
  return Parsed(Post("/v3/auth/role/list", "{}", "role list", /*idempotent=*/true),
                &wire::ParseRoleNames, "role list");
}

absl::Status Client::AuthEnable() {
  return Post("/v3/auth/enable", "{}", "auth enable", /*idempotent=*/true).status();
}

absl::Status Client::AuthDisable() {
  return Post("/v3/auth/disable", "{}", "auth disable", /*idempotent=*/true).status();
}

absl::StatusOr<AuthStatusResponse> Client::AuthStatus() {
  return Parsed(Post("/v3/auth/status", "{}", "auth status", /*idempotent=*/true),
                &wire::ParseAuthStatus, "auth status");
}

}  // namespace quorum::etcd
