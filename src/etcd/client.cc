#include "src/etcd/client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "etcd/api/etcdserverpb/rpc.grpc.pb.h"
#include "src/base/strings.h"
#include "src/etcd/connection.h"
#include "src/etcd/errors.h"

namespace quorum::etcd {
namespace {

namespace pb = etcdserverpb;
using internal::Connection;

std::string Trimmed(std::string_view endpoint) {
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.remove_suffix(1);
  return std::string(endpoint);
}

std::vector<std::string> Strings(const google::protobuf::RepeatedPtrField<std::string>& in) {
  return std::vector<std::string>(in.begin(), in.end());
}

Member FromProto(const pb::Member& m) {
  return Member{.id = m.id(),
                .name = m.name(),
                .peer_urls = Strings(m.peerurls()),
                .client_urls = Strings(m.clienturls()),
                .is_learner = m.islearner()};
}

std::vector<Member> FromProto(const google::protobuf::RepeatedPtrField<pb::Member>& in) {
  std::vector<Member> out;
  for (const pb::Member& m : in) out.push_back(FromProto(m));
  return out;
}

StatusResponse FromProto(const pb::StatusResponse& r) {
  return StatusResponse{.version = r.version(),
                        .db_size = r.dbsize(),
                        .db_size_in_use = r.dbsizeinuse(),
                        .leader = r.leader(),
                        .raft_index = r.raftindex(),
                        .raft_term = r.raftterm(),
                        .raft_applied_index = r.raftappliedindex(),
                        .is_learner = r.islearner(),
                        .errors = Strings(r.errors()),
                        .member_id = r.header().member_id(),
                        .cluster_id = r.header().cluster_id(),
                        .revision = r.header().revision()};
}

std::string AlarmName(pb::AlarmType type) {
  switch (type) {
    case pb::NOSPACE:
      return "NOSPACE";
    case pb::CORRUPT:
      return "CORRUPT";
    case pb::NONE:
      return "";
    default:
      return absl::StrCat("ALARM_", static_cast<int>(type));
  }
}

std::string MemberWhat(std::string_view verb, uint64_t id) {
  return absl::StrCat("member ", Absl(verb), " ", absl::Hex(id));
}

}  // namespace

// --- Construction -----------------------------------------------------------

Client::Client(ClientConfig config) : config_(std::move(config)) {}
Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Create(ClientConfig config) {
  if (config.endpoints.empty()) return absl::InvalidArgumentError("etcd client: no endpoints");
  for (std::string& e : config.endpoints) e = Trimmed(e);
  if (config.timeout <= absl::ZeroDuration()) config.timeout = absl::Seconds(5);
  auto client = std::unique_ptr<Client>(new Client(std::move(config)));
  absl::StatusOr<std::unique_ptr<Connection>> conn = Connection::Create(client->config_);
  if (!conn.ok()) return conn.status();
  client->connection_ = *std::move(conn);
  return client;
}

void Client::ForgetToken() { connection_->ForgetToken(); }

// --- Membership ---------------------------------------------------------------

absl::StatusOr<MemberListResponse> Client::MemberList(bool linearizable,
                                                      std::optional<absl::Duration> timeout) {
  pb::MemberListRequest req;
  req.set_linearizable(linearizable);
  absl::StatusOr<pb::MemberListResponse> r =
      connection_->Call(&pb::Cluster::Stub::MemberList, req, "member list", /*idempotent=*/true,
                        timeout.value_or(config_.timeout));
  if (!r.ok()) return r.status();
  if (r->members().empty()) return absl::InternalError("member list: the answer lists no members");
  return MemberListResponse{.cluster_id = r->header().cluster_id(),
                            .members = FromProto(r->members())};
}

absl::StatusOr<MemberAddResponse> Client::MemberAdd(const std::vector<std::string>& peer_urls,
                                                    bool is_learner) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member add: no peer URLs");
  pb::MemberAddRequest req;
  for (const std::string& u : peer_urls) req.add_peerurls(u);
  req.set_islearner(is_learner);
  absl::StatusOr<pb::MemberAddResponse> r = connection_->Call(
      &pb::Cluster::Stub::MemberAdd, req, "member add", /*idempotent=*/false, config_.timeout);
  if (!r.ok()) return r.status();
  if (r->member().id() == 0) return absl::InternalError("member add: the answer has no member ID");
  return MemberAddResponse{.added = FromProto(r->member()), .members = FromProto(r->members())};
}

absl::Status Client::MemberRemove(uint64_t id) {
  pb::MemberRemoveRequest req;
  req.set_id(id);
  return connection_
      ->Call(&pb::Cluster::Stub::MemberRemove, req, MemberWhat("remove", id),
             /*idempotent=*/false, config_.timeout)
      .status();
}

absl::Status Client::MemberPromote(uint64_t id) {
  pb::MemberPromoteRequest req;
  req.set_id(id);
  return connection_
      ->Call(&pb::Cluster::Stub::MemberPromote, req, MemberWhat("promote", id),
             /*idempotent=*/false, config_.timeout)
      .status();
}

absl::Status Client::MemberUpdate(uint64_t id, const std::vector<std::string>& peer_urls) {
  if (peer_urls.empty()) return absl::InvalidArgumentError("member update: no peer URLs");
  pb::MemberUpdateRequest req;
  req.set_id(id);
  for (const std::string& u : peer_urls) req.add_peerurls(u);
  return connection_
      ->Call(&pb::Cluster::Stub::MemberUpdate, req, MemberWhat("update", id),
             /*idempotent=*/true, config_.timeout)
      .status();
}

// --- Maintenance ----------------------------------------------------------------

absl::StatusOr<StatusResponse> Client::Status(std::string_view endpoint,
                                              std::optional<absl::Duration> timeout) {
  const std::string ep = Trimmed(endpoint);
  absl::StatusOr<pb::StatusResponse> r =
      connection_->CallOn(ep, &pb::Maintenance::Stub::Status, pb::StatusRequest(),
                          absl::StrCat("status of ", ep), timeout.value_or(config_.timeout));
  if (!r.ok()) return r.status();
  return FromProto(*r);
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
  pb::MoveLeaderRequest req;
  req.set_targetid(target_id);
  for (const std::string& url : urls) {
    const std::string ep = Trimmed(url);
    absl::Status r = connection_
                         ->CallOn(ep, &pb::Maintenance::Stub::MoveLeader, req,
                                  absl::StrCat("move leader to ", absl::Hex(target_id), " on ", ep),
                                  config_.timeout)
                         .status();
    if (r.ok() || !absl::IsUnavailable(r)) return r;
    last = r;
  }
  return last;
}

absl::StatusOr<std::vector<Alarm>> Client::Alarms() {
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::GET);
  absl::StatusOr<pb::AlarmResponse> r = connection_->Call(
      &pb::Maintenance::Stub::Alarm, req, "alarm list", /*idempotent=*/true, config_.timeout);
  if (!r.ok()) return r.status();
  std::vector<Alarm> out;
  for (const pb::AlarmMember& a : r->alarms()) {
    std::string type = AlarmName(a.alarm());
    if (!type.empty()) out.push_back(Alarm{.member_id = a.memberid(), .type = std::move(type)});
  }
  return out;
}

absl::Status Client::AlarmDisarm(const Alarm& alarm) {
  pb::AlarmType type = pb::NONE;
  if (!pb::AlarmType_Parse(alarm.type, &type) || type == pb::NONE) {
    return absl::InvalidArgumentError(absl::StrCat("disarm alarm: unknown type ", alarm.type));
  }
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::DEACTIVATE);
  req.set_memberid(alarm.member_id);
  req.set_alarm(type);
  return connection_
      ->Call(&pb::Maintenance::Stub::Alarm, req,
             absl::StrCat("disarm alarm ", alarm.type, " of member ", absl::Hex(alarm.member_id)),
             /*idempotent=*/true, config_.timeout)
      .status();
}

absl::Status Client::Compact(int64_t revision) {
  pb::CompactionRequest req;
  req.set_revision(revision);
  req.set_physical(true);
  // Safe to repeat: a second compaction to the same revision is IsCompacted().
  return connection_
      ->Call(&pb::KV::Stub::Compact, req, absl::StrCat("compact to revision ", revision),
             /*idempotent=*/true, config_.timeout)
      .status();
}

absl::Status Client::Defragment(std::string_view endpoint) {
  const std::string ep = Trimmed(endpoint);
  return connection_
      ->CallOn(ep, &pb::Maintenance::Stub::Defragment, pb::DefragmentRequest(),
               absl::StrCat("defragment ", ep), std::max(config_.timeout, absl::Minutes(1)))
      .status();
}

}  // namespace quorum::etcd
