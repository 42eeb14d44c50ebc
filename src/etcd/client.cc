#include "src/etcd/client.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/clock.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"

namespace quorum::etcd {
namespace {

using nlohmann::json;

// --- JSON helpers that never throw -------------------------------------------

// Serializes without throwing on invalid UTF-8 (user names, passwords).
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

const json* Field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// 64-bit integers travel as decimal strings; small ones may be numbers.
uint64_t U64(const json& j, const char* key) {
  const json* f = Field(j, key);
  if (f == nullptr) return 0;
  if (f->is_number_unsigned()) return f->get<uint64_t>();
  if (f->is_number_integer()) return static_cast<uint64_t>(f->get<int64_t>());
  uint64_t v = 0;
  if (f->is_string() && absl::SimpleAtoi(f->get_ref<const std::string&>(), &v)) return v;
  return 0;
}

int64_t I64(const json& j, const char* key) { return static_cast<int64_t>(U64(j, key)); }

std::string Str(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

bool Bool(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

std::vector<std::string> StrList(const json& j, const char* key) {
  std::vector<std::string> out;
  const json* f = Field(j, key);
  if (f == nullptr || !f->is_array()) return out;
  for (const json& e : *f) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

// Bytes travel as base64; a field that is absent is empty.
std::string Bytes(const json& j, const char* key) {
  std::string out;
  absl::Base64Unescape(Str(j, key), &out);
  return out;
}

std::string B64(std::string_view s) { return absl::Base64Escape(Absl(s)); }

absl::StatusOr<json> ParseBody(const std::string& body, std::string_view what) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InternalError(absl::StrCat(Absl(what), ": the answer is not a JSON object"));
  }
  return j;
}

Member ParseMember(const json& j) {
  Member m;
  m.id = U64(j, "ID");
  m.name = Str(j, "name");
  m.peer_urls = StrList(j, "peerURLs");
  m.client_urls = StrList(j, "clientURLs");
  m.is_learner = Bool(j, "isLearner");
  return m;
}

std::vector<Member> ParseMembers(const json& j) {
  std::vector<Member> out;
  const json* f = Field(j, "members");
  if (f == nullptr || !f->is_array()) return out;
  for (const json& m : *f) out.push_back(ParseMember(m));
  return out;
}

std::string Id(uint64_t id) { return std::to_string(id); }

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
  const std::string body =
      Dump(json{{"name", config_.username}, {"password", config_.password}});
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
      absl::StatusOr<json> j = ParseBody(resp->body, what);
      if (!j.ok()) return j.status();
      token = Str(*j, "token");
      if (token.empty()) return absl::InternalError(absl::StrCat(what, ": no token in the answer"));
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
                                         std::string_view what, bool idempotent) {
  const size_t n = config_.endpoints.size();
  size_t start = 0;
  {
    absl::MutexLock lock(&mu_);
    start = preferred_;
  }
  absl::Status last;
  for (size_t i = 0; i < n; ++i) {
    const size_t idx = (start + i) % n;
    const std::string& endpoint = config_.endpoints[idx];
    absl::StatusOr<std::string> r =
        PostTo(endpoint, path, body, absl::StrCat(Absl(what), " on ", endpoint));
    if (r.ok() || !ShouldFailOver(r.status(), idempotent)) {
      absl::MutexLock lock(&mu_);
      preferred_ = idx;
      return r;
    }
    last = r.status();
  }
  if (n == 1) return last;
  return absl::Status(last.code(), absl::StrCat(Absl(what), ": none of ", n,
                                                " endpoints could serve it; last: ",
                                                last.message()));
}

// --- Membership ---------------------------------------------------------------

absl::StatusOr<MemberListResponse> Client::MemberList(bool linearizable) {
  json req = json::object();
  if (linearizable) req["linearizable"] = true;
  absl::StatusOr<std::string> body =
      Post("/v3/cluster/member/list", Dump(req), "member list", /*idempotent=*/true);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "member list");
  if (!j.ok()) return j.status();
  MemberListResponse out;
  if (const json* h = Field(*j, "header")) out.cluster_id = U64(*h, "cluster_id");
  out.members = ParseMembers(*j);
  if (out.members.empty()) return absl::InternalError("member list: the answer has no members");
  return out;
}

absl::StatusOr<MemberAddResponse> Client::MemberAdd(const std::vector<std::string>& peer_urls,
                                                    bool is_learner) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member add: no peer URLs");
  json req = {{"peerURLs", peer_urls}};
  if (is_learner) req["isLearner"] = true;
  absl::StatusOr<std::string> body =
      Post("/v3/cluster/member/add", Dump(req), "member add", /*idempotent=*/false);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "member add");
  if (!j.ok()) return j.status();
  MemberAddResponse out;
  if (const json* m = Field(*j, "member")) out.added = ParseMember(*m);
  out.members = ParseMembers(*j);
  if (out.added.id == 0) return absl::InternalError("member add: the answer has no member ID");
  return out;
}

absl::Status Client::MemberRemove(uint64_t id) {
  return Post("/v3/cluster/member/remove", Dump(json{{"ID", Id(id)}}),
              absl::StrCat("member remove ", absl::Hex(id)), /*idempotent=*/false)
      .status();
}

absl::Status Client::MemberPromote(uint64_t id) {
  return Post("/v3/cluster/member/promote", Dump(json{{"ID", Id(id)}}),
              absl::StrCat("member promote ", absl::Hex(id)), /*idempotent=*/false)
      .status();
}

absl::Status Client::MemberUpdate(uint64_t id, const std::vector<std::string>& peer_urls) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member update: no peer URLs");
  return Post("/v3/cluster/member/update", Dump(json{{"ID", Id(id)}, {"peerURLs", peer_urls}}),
              absl::StrCat("member update ", absl::Hex(id)), /*idempotent=*/true)
      .status();
}

// --- Maintenance --------------------------------------------------------------

absl::StatusOr<StatusResponse> Client::Status(std::string_view endpoint) {
  const std::string ep = Trimmed(endpoint);
  const std::string what = absl::StrCat("status of ", ep);
  absl::StatusOr<std::string> body = PostTo(ep, "/v3/maintenance/status", "{}", what);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, what);
  if (!j.ok()) return j.status();
  StatusResponse out;
  out.version = Str(*j, "version");
  out.db_size = I64(*j, "dbSize");
  out.db_size_in_use = I64(*j, "dbSizeInUse");
  out.leader = U64(*j, "leader");
  out.raft_index = U64(*j, "raftIndex");
  out.raft_term = U64(*j, "raftTerm");
  out.raft_applied_index = U64(*j, "raftAppliedIndex");
  out.is_learner = Bool(*j, "isLearner");
  out.errors = StrList(*j, "errors");
  if (const json* h = Field(*j, "header")) {
    out.member_id = U64(*h, "member_id");
    out.cluster_id = U64(*h, "cluster_id");
  }
  return out;
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
  const std::string body = Dump(json{{"targetID", Id(target_id)}});
  for (const std::string& url : urls) {
    const std::string ep = Trimmed(url);
    absl::StatusOr<std::string> r =
        PostTo(ep, "/v3/maintenance/transfer-leadership", body,
               absl::StrCat("move leader to ", absl::Hex(target_id), " on ", ep));
    if (r.ok() || !absl::IsUnavailable(r.status())) return r.status();
    last = r.status();
  }
  return last;
}

absl::StatusOr<std::vector<Alarm>> Client::Alarms() {
  absl::StatusOr<std::string> body = Post("/v3/maintenance/alarm", R"({"action":"GET"})",
                                          "alarm list", /*idempotent=*/true);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "alarm list");
  if (!j.ok()) return j.status();
  std::vector<Alarm> out;
  const json* alarms = Field(*j, "alarms");
  if (alarms == nullptr || !alarms->is_array()) return out;
  for (const json& a : *alarms) {
    Alarm alarm;
    alarm.member_id = U64(a, "memberID");
    const json* type = Field(a, "alarm");
    if (type != nullptr && type->is_string()) {
      alarm.type = type->get<std::string>();
    } else if (type != nullptr && type->is_number_integer()) {
      const int64_t t = type->get<int64_t>();
      alarm.type = t == 1 ? "NOSPACE" : t == 2 ? "CORRUPT" : absl::StrCat("ALARM_", t);
    }
    if (alarm.type.empty() || alarm.type == "NONE") continue;
    out.push_back(std::move(alarm));
  }
  return out;
}

absl::Status Client::Defragment(std::string_view endpoint) {
  const std::string ep = Trimmed(endpoint);
  return PostTo(ep, "/v3/maintenance/defragment", "{}", absl::StrCat("defragment ", ep),
                std::max(config_.timeout, absl::Minutes(1)))
      .status();
}

// --- KV -----------------------------------------------------------------------

absl::StatusOr<int64_t> Client::Put(std::string_view key, std::string_view value) {
  absl::StatusOr<std::string> body = Post(
      "/v3/kv/put", Dump(json{{"key", B64(key)}, {"value", B64(value)}}), "put", false);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "put");
  if (!j.ok()) return j.status();
  const json* h = Field(*j, "header");
  return h == nullptr ? 0 : I64(*h, "revision");
}

absl::StatusOr<GetResponse> Client::Get(std::string_view key) {
  absl::StatusOr<std::string> body =
      Post("/v3/kv/range", Dump(json{{"key", B64(key)}}), "get", /*idempotent=*/true);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "get");
  if (!j.ok()) return j.status();
  GetResponse out;
  if (const json* h = Field(*j, "header")) out.revision = I64(*h, "revision");
  const json* kvs = Field(*j, "kvs");
  if (kvs != nullptr && kvs->is_array() && !kvs->empty()) {
    out.value = Bytes((*kvs)[0], "value");
    out.mod_revision = I64((*kvs)[0], "mod_revision");
  }
  return out;
}

// --- Auth ---------------------------------------------------------------------

absl::Status Client::UserAdd(std::string_view name, std::string_view password) {
  return Post("/v3/auth/user/add",
              Dump(json{{"name", std::string(name)}, {"password", std::string(password)}}),
              absl::StrCat("user add ", Absl(name)), /*idempotent=*/false)
      .status();
}

absl::Status Client::RoleAdd(std::string_view name) {
  return Post("/v3/auth/role/add", Dump(json{{"name", std::string(name)}}),
              absl::StrCat("role add ", Absl(name)), /*idempotent=*/false)
      .status();
}

absl::Status Client::UserGrantRole(std::string_view user, std::string_view role) {
  return Post("/v3/auth/user/grant",
              Dump(json{{"user", std::string(user)}, {"role", std::string(role)}}),
              absl::StrCat("grant role ", Absl(role), " to ", Absl(user)), /*idempotent=*/true)
      .status();
}

absl::Status Client::RoleGrantPermission(std::string_view role, std::string_view key,
                                         std::string_view range_end, Permission permission) {
  const char* type = permission == Permission::kRead    ? "READ"
                     : permission == Permission::kWrite ? "WRITE"
                                                        : "READWRITE";
  json perm = {{"permType", type}, {"key", B64(key)}};
  if (!range_end.empty()) perm["range_end"] = B64(range_end);
  return Post("/v3/auth/role/grant", Dump(json{{"name", std::string(role)}, {"perm", perm}}),
              absl::StrCat("grant permission to role ", Absl(role)), /*idempotent=*/true)
      .status();
}

absl::Status Client::AuthEnable() {
  return Post("/v3/auth/enable", "{}", "auth enable", /*idempotent=*/true).status();
}

absl::Status Client::AuthDisable() {
  return Post("/v3/auth/disable", "{}", "auth disable", /*idempotent=*/true).status();
}

absl::StatusOr<AuthStatusResponse> Client::AuthStatus() {
  absl::StatusOr<std::string> body =
      Post("/v3/auth/status", "{}", "auth status", /*idempotent=*/true);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> j = ParseBody(*body, "auth status");
  if (!j.ok()) return j.status();
  AuthStatusResponse out;
  out.enabled = Bool(*j, "enabled");
  out.auth_revision = U64(*j, "authRevision");
  return out;
}

}  // namespace quorum::etcd
