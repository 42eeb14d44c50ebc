#include "src/patroni/rest_client.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/base/clock.h"
#include "src/base/strings.h"

namespace quorum::patroni {
namespace {

using nlohmann::json;

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t Int(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

absl::StatusOr<json> ParseObject(std::string_view body, std::string_view what) {
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(Absl(what), ": not a JSON object"));
  }
  return j;
}

// The first line of Patroni's answer (plain text for POST endpoints).
std::string Excerpt(std::string_view body) {
  std::string_view s = body.substr(0, body.find('\n'));
  return std::string(s.substr(0, 300));
}

absl::Status StatusFromCode(long code, std::string_view body, std::string_view what) {
  if (code >= 200 && code < 300) return absl::OkStatus();
  const std::string msg = absl::StrCat(Absl(what), ": HTTP ", code, ": ", Excerpt(body));
  switch (code) {
    case 400:
      return absl::InvalidArgumentError(msg);
    case 401:
      return absl::UnauthenticatedError(msg);
    case 403:
      return absl::PermissionDeniedError(msg);
    case 409:  // PATCH /config: the DCS copy changed since read (compare-and-set)
      return absl::AbortedError(msg);
    case 412:
      return absl::FailedPreconditionError(msg);
    case 503:
      return absl::UnavailableError(msg);
    default:
      return absl::InternalError(msg);
  }
}

}  // namespace

std::string ClusterStatus::Leader() const {
  for (const ClusterMember& m : members) {
    if (m.role == "leader" || m.role == "standby_leader") return m.name;
  }
  return "";
}

absl::StatusOr<MemberStatus> ParseMemberStatus(std::string_view body) {
  absl::StatusOr<json> j = ParseObject(body, "GET /patroni");
  if (!j.ok()) return j.status();
  MemberStatus s;
  if (auto p = j->find("patroni"); p != j->end() && p->is_object()) {
    s.name = Str(*p, "name");
    s.scope = Str(*p, "scope");
  }
  s.state = Str(*j, "state");
  s.role = Str(*j, "role");
  s.database_system_identifier = Str(*j, "database_system_identifier");
  if (auto p = j->find("pending_restart"); p != j->end() && p->is_boolean()) {
    s.pending_restart = p->get<bool>();
  }
  s.timeline = Int(*j, "timeline");
  if (auto x = j->find("xlog"); x != j->end() && x->is_object()) {
    s.xlog_location = Int(*x, "location");
    s.xlog_received_location = Int(*x, "received_location");
    s.xlog_replayed_location = Int(*x, "replayed_location");
  }
  if (auto r = j->find("replication"); r != j->end() && r->is_array()) {
    for (const json& sender : *r) {
      if (sender.is_object() && Str(sender, "state") == "streaming") {
        s.streaming_to.push_back(Str(sender, "application_name"));
      }
    }
  }
  return s;
}

absl::StatusOr<ClusterStatus> ParseClusterStatus(std::string_view body) {
  absl::StatusOr<json> j = ParseObject(body, "GET /cluster");
  if (!j.ok()) return j.status();
  ClusterStatus c;
  c.scope = Str(*j, "scope");
  auto members = j->find("members");
  if (members == j->end() || !members->is_array()) return c;
  for (const json& m : *members) {
    if (!m.is_object()) continue;
    ClusterMember cm;
    cm.name = Str(m, "name");
    cm.role = Str(m, "role");
    cm.state = Str(m, "state");
    cm.api_url = Str(m, "api_url");
    cm.host = Str(m, "host");
    cm.port = static_cast<int>(Int(m, "port"));
    cm.timeline = Int(m, "timeline");
    if (auto lag = m.find("lag"); lag != m.end() && lag->is_number_integer()) {
      cm.lag = lag->get<int64_t>();
    }
    c.members.push_back(std::move(cm));
  }
  return c;
}

RestClient::RestClient(RestClientConfig config) : config_(std::move(config)) {}
RestClient::~RestClient() = default;

absl::StatusOr<std::shared_ptr<kube::Transport>> RestClient::TransportFor(const Endpoint& member) {
  // Keyed by everything that shapes the connection: a pod IP reused by
  // another cluster's member must not reuse the first one's trust.
  const std::string key = absl::StrCat(member.url, "\n", member.tls_server_name, "\n",
                                       member.ca_pem, "\n", member.client_cert_pem);
  absl::MutexLock lock(&mu_);
  if (auto it = transports_.find(key); it != transports_.end()) {
    it->second.last_used = ++uses_;
    return it->second.transport;
  }
  kube::RestConfig rc;
  rc.server = member.url;
  while (!rc.server.empty() && rc.server.back() == '/') rc.server.pop_back();
  rc.ca_pem = member.ca_pem.empty() ? config_.ca_pem : member.ca_pem;
  rc.tls_server_name = member.tls_server_name;
  const bool own = !member.client_cert_pem.empty();
  rc.client_cert_pem = own ? member.client_cert_pem : config_.cert_pem;
  rc.client_key_pem = own ? member.client_key_pem : config_.key_pem;
  rc.timeout = config_.timeout;
  rc.qps = 0;
  rc.user_agent = "quorum-patroni";
  absl::StatusOr<std::unique_ptr<kube::Transport>> t = kube::Transport::Create(rc, RealClock());
  if (!t.ok()) return t.status();
  std::shared_ptr<kube::Transport> shared = *std::move(t);
  while (!transports_.empty() &&
         transports_.size() >= std::max<size_t>(1, config_.max_cached_connections)) {
    auto oldest = transports_.begin();
    for (auto it = transports_.begin(); it != transports_.end(); ++it) {
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    }
    transports_.erase(oldest);  // a request still using it holds its own reference
  }
  transports_.emplace(key, Cached{shared, ++uses_});
  return shared;
}

size_t RestClient::cached_connections() const {
  absl::MutexLock lock(&mu_);
  return transports_.size();
}

absl::StatusOr<kube::HttpResponse> RestClient::Send(const Endpoint& member, std::string method,
                                                    std::string path, std::string body,
                                                    std::optional<absl::Duration> timeout,
                                                    const BasicAuth& auth) {
  absl::StatusOr<std::shared_ptr<kube::Transport>> t = TransportFor(member);
  if (!t.ok()) return t.status();
  kube::HttpRequest req;
  req.method = std::move(method);
  req.path = std::move(path);
  if (!body.empty()) {
    req.body = std::move(body);
    req.content_type = "application/json";
  }
  req.accept = "application/json, text/plain";
  req.timeout = timeout;
  if (!auth.username.empty()) {
    req.authorization = "Basic " + absl::Base64Escape(auth.username + ":" + auth.password);
  }
  return (*t)->Do(req);
}

absl::StatusOr<MemberStatus> RestClient::GetPatroni(const Endpoint& member) {
  absl::StatusOr<kube::HttpResponse> r = Send(member, "GET", "/patroni", "", std::nullopt);
  if (!r.ok()) return r.status();
  if (absl::Status s = StatusFromCode(r->code, r->body, "GET /patroni"); !s.ok()) return s;
  return ParseMemberStatus(r->body);
}

absl::StatusOr<ClusterStatus> RestClient::GetCluster(const Endpoint& member) {
  absl::StatusOr<kube::HttpResponse> r = Send(member, "GET", "/cluster", "", std::nullopt);
  if (!r.ok()) return r.status();
  if (absl::Status s = StatusFromCode(r->code, r->body, "GET /cluster"); !s.ok()) return s;
  return ParseClusterStatus(r->body);
}

absl::Status RestClient::Switchover(const Endpoint& member, std::string_view leader,
                                    std::string_view candidate, const BasicAuth& auth) {
  json body = {{"leader", std::string(leader)}};
  if (!candidate.empty()) body["candidate"] = std::string(candidate);
  // Patroni answers after the switchover, which may take a few loop_waits.
  absl::StatusOr<kube::HttpResponse> r = Send(member, "POST", "/switchover", body.dump(),
                                              std::max(config_.timeout, absl::Seconds(60)), auth);
  if (!r.ok()) return r.status();
  return StatusFromCode(r->code, r->body, "POST /switchover");
}

absl::Status RestClient::Failover(const Endpoint& member, std::string_view candidate,
                                  const BasicAuth& auth) {
  json body = {{"candidate", std::string(candidate)}};
  absl::StatusOr<kube::HttpResponse> r = Send(member, "POST", "/failover", body.dump(),
                                              std::max(config_.timeout, absl::Seconds(60)), auth);
  if (!r.ok()) return r.status();
  return StatusFromCode(r->code, r->body, "POST /failover");
}

absl::StatusOr<json> RestClient::GetConfig(const Endpoint& member) {
  absl::StatusOr<kube::HttpResponse> r = Send(member, "GET", "/config", "", std::nullopt);
  if (!r.ok()) return r.status();
  if (absl::Status s = StatusFromCode(r->code, r->body, "GET /config"); !s.ok()) return s;
  json body = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return absl::InternalError("GET /config: the body is not a JSON object");
  return body;
}

absl::Status RestClient::PatchConfig(const Endpoint& member, const json& patch,
                                     const BasicAuth& auth) {
  absl::StatusOr<kube::HttpResponse> r =
      Send(member, "PATCH", "/config", patch.dump(), std::nullopt, auth);
  if (!r.ok()) return r.status();
  return StatusFromCode(r->code, r->body, "PATCH /config");
}

absl::Status RestClient::Reload(const Endpoint& member, const BasicAuth& auth) {
  absl::StatusOr<kube::HttpResponse> r = Send(member, "POST", "/reload", "", std::nullopt, auth);
  if (!r.ok()) return r.status();
  return StatusFromCode(r->code, r->body, "POST /reload");
}

}  // namespace quorum::patroni
