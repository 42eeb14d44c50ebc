#include "src/etcd/wire.h"

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/etcd/gateway_json.h"

namespace quorum::etcd::wire {
namespace {

using nlohmann::json;

// Serializes without throwing on invalid UTF-8 (user names, passwords).
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string Str(std::string_view s) { return std::string(s); }
std::string B64(std::string_view s) { return absl::Base64Escape(Absl(s)); }
std::string Id(uint64_t id) { return std::to_string(id); }

using gateway::Field;
using gateway::U64;

int64_t I64(const json& j, const char* key) { return static_cast<int64_t>(U64(j, key)); }

std::string String(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

bool Bool(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  const json* f = Field(j, key);
  if (f == nullptr || !f->is_array()) return out;
  for (const json& e : *f) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

std::string Bytes(const json& j, const char* key) {
  std::string out;
  if (!absl::Base64Unescape(String(j, key), &out)) out.clear();
  return out;
}

absl::StatusOr<json> Parse(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InternalError("the answer is not a JSON object");
  }
  return j;
}

Member ParseMember(const json& j) {
  Member m;
  m.id = U64(j, "ID");
  m.name = String(j, "name");
  m.peer_urls = Strings(j, "peerURLs");
  m.client_urls = Strings(j, "clientURLs");
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

const json& Header(const json& j) {
  static const json* const kEmpty = new json(json::object());
  const json* h = Field(j, "header");
  return h != nullptr ? *h : *kEmpty;
}

}  // namespace

std::string MemberListRequest(bool linearizable) {
  return linearizable ? R"({"linearizable":true})" : "{}";
}

std::string MemberAddRequest(const std::vector<std::string>& peer_urls, bool is_learner) {
  json j = {{"peerURLs", peer_urls}};
  if (is_learner) j["isLearner"] = true;
  return Dump(j);
}

std::string MemberIdRequest(uint64_t id) { return Dump(json{{"ID", Id(id)}}); }

std::string MemberUpdateRequest(uint64_t id, const std::vector<std::string>& peer_urls) {
  return Dump(json{{"ID", Id(id)}, {"peerURLs", peer_urls}});
}

std::string MoveLeaderRequest(uint64_t target_id) {
  return Dump(json{{"targetID", Id(target_id)}});
}

std::string CompactRequest(int64_t revision, bool physical) {
  json j{{"revision", std::to_string(revision)}};
  if (physical) j["physical"] = true;
  return Dump(j);
}

std::string AlarmDisarmRequest(const Alarm& alarm) {
  return Dump(
      json{{"action", "DEACTIVATE"}, {"memberID", Id(alarm.member_id)}, {"alarm", alarm.type}});
}

std::string PutRequest(std::string_view key, std::string_view value) {
  return Dump(json{{"key", B64(key)}, {"value", B64(value)}});
}

std::string RangeRequest(std::string_view key) { return Dump(json{{"key", B64(key)}}); }

std::string PrefixRangeEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');
  end.back() = static_cast<char>(end.back() + 1);
  return end;
}

std::string DeletePrefixRequest(std::string_view prefix) {
  return Dump(json{{"key", B64(prefix)}, {"range_end", B64(PrefixRangeEnd(prefix))}});
}

std::string DeleteIfValueRequest(std::string_view key, std::string_view value) {
  return Dump(json{
      {"compare",
       json::array({json{
           {"key", B64(key)}, {"target", "VALUE"}, {"result", "EQUAL"}, {"value", B64(value)}}})},
      {"success", json::array({json{{"request_delete_range", json{{"key", B64(key)}}}}})}});
}

std::string AuthenticateRequest(std::string_view name, std::string_view password) {
  return Dump(json{{"name", Str(name)}, {"password", Str(password)}});
}

std::string UserAddRequest(std::string_view name, std::string_view password) {
  return Dump(json{{"name", Str(name)}, {"password", Str(password)}});
}

std::string RoleAddRequest(std::string_view name) { return Dump(json{{"name", Str(name)}}); }

std::string NameRequest(std::string_view name) { return Dump(json{{"name", Str(name)}}); }

std::string RoleRequest(std::string_view role) { return Dump(json{{"role", Str(role)}}); }

std::string UserGrantRoleRequest(std::string_view user, std::string_view role) {
  return Dump(json{{"user", Str(user)}, {"role", Str(role)}});
}

std::string RoleGrantPermissionRequest(std::string_view role, std::string_view key,
                                       std::string_view range_end, Permission permission) {
  const char* type = permission == Permission::kRead    ? "READ"
                     : permission == Permission::kWrite ? "WRITE"
                                                        : "READWRITE";
  json perm = {{"permType", type}, {"key", B64(key)}};
  if (!range_end.empty()) perm["range_end"] = B64(range_end);
  return Dump(json{{"name", Str(role)}, {"perm", perm}});
}

absl::StatusOr<MemberListResponse> ParseMemberList(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  MemberListResponse out;
  out.cluster_id = U64(Header(*j), "cluster_id");
  out.members = ParseMembers(*j);
  if (out.members.empty()) return absl::InternalError("the answer lists no members");
  return out;
}

absl::StatusOr<MemberAddResponse> ParseMemberAdd(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  MemberAddResponse out;
  if (const json* m = Field(*j, "member")) out.added = ParseMember(*m);
  out.members = ParseMembers(*j);
  if (out.added.id == 0) return absl::InternalError("the answer has no member ID");
  return out;
}

absl::StatusOr<StatusResponse> ParseStatus(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  StatusResponse out;
  out.version = String(*j, "version");
  out.db_size = I64(*j, "dbSize");
  out.db_size_in_use = I64(*j, "dbSizeInUse");
  out.leader = U64(*j, "leader");
  out.raft_index = U64(*j, "raftIndex");
  out.raft_term = U64(*j, "raftTerm");
  out.raft_applied_index = U64(*j, "raftAppliedIndex");
  out.is_learner = Bool(*j, "isLearner");
  out.errors = Strings(*j, "errors");
  out.member_id = U64(Header(*j), "member_id");
  out.cluster_id = U64(Header(*j), "cluster_id");
  out.revision = I64(Header(*j), "revision");
  return out;
}

absl::StatusOr<std::vector<Alarm>> ParseAlarms(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
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

absl::StatusOr<int64_t> ParsePut(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  return I64(Header(*j), "revision");
}

absl::StatusOr<int64_t> ParseDeleted(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  return I64(*j, "deleted");
}

absl::StatusOr<bool> ParseTxnSucceeded(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  return Bool(*j, "succeeded");  // proto3 JSON omits false
}

absl::StatusOr<GetResponse> ParseRange(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  GetResponse out;
  out.revision = I64(Header(*j), "revision");
  const json* kvs = Field(*j, "kvs");
  if (kvs != nullptr && kvs->is_array() && !kvs->empty()) {
    out.value = Bytes((*kvs)[0], "value");
    out.mod_revision = I64((*kvs)[0], "mod_revision");
  }
  return out;
}

absl::StatusOr<AuthStatusResponse> ParseAuthStatus(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  AuthStatusResponse out;
  out.enabled = Bool(*j, "enabled");
  out.auth_revision = U64(*j, "authRevision");
  return out;
}

namespace {
absl::StatusOr<std::vector<std::string>> ParseNames(std::string_view body, const char* field) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  std::vector<std::string> out;
  if (const json* names = Field(*j, field); names != nullptr && names->is_array()) {
    for (const json& n : *names) {
      if (n.is_string()) out.push_back(n.get<std::string>());
    }
  }
  return out;
}
}  // namespace

absl::StatusOr<std::vector<std::string>> ParseUserNames(std::string_view body) {
  return ParseNames(body, "users");
}

absl::StatusOr<std::vector<std::string>> ParseRoleNames(std::string_view body) {
  return ParseNames(body, "roles");
}

absl::StatusOr<std::string> ParseToken(std::string_view body) {
  absl::StatusOr<json> j = Parse(body);
  if (!j.ok()) return j.status();
  std::string token = String(*j, "token");
  if (token.empty()) return absl::InternalError("the answer has no token");
  return token;
}

}  // namespace quorum::etcd::wire
