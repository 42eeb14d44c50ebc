#include "src/controllers/etcdcluster/status.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "src/controllers/common/typed_condition.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/controllers/etcdcluster/version_path.h"
#include "src/runtime/conditions.h"

namespace quorum::etcdcluster {
namespace {

using controllers::MakeCondition;
using controllers::MakeConditionStatus;

constexpr char kQuorumLost[] = "QuorumLost";
constexpr char kQuorumRecovering[] = "QuorumRecovering";

std::string Hex(uint64_t id) { return absl::StrFormat("%x", id); }

api::EtcdMemberStatus MemberOf(const MemberStatus& ms, const EtcdView& etcd) {
  return {.name = ms.member.name,
          .id = Hex(ms.member.id),
          .peer_url = ms.member.peer_urls.empty() ? "" : ms.member.peer_urls.front(),
          .client_url = ms.member.client_urls.empty() ? "" : ms.member.client_urls.front(),
          .is_learner = ms.member.is_learner,
          .is_leader = etcd.leader_id && *etcd.leader_id == ms.member.id,
          .healthy = ms.status.has_value() && ms.status->leader != 0 && ms.status->errors.empty(),
          .version = ms.status ? ms.status->version : ""};
}

// SelectorLabels as a label selector string ("k=v,k=v", keys in order).
std::string PodSelector(const EtcdCluster& cluster) {
  std::vector<std::string> terms;
  for (const auto& [k, v] : SelectorLabels(cluster)) terms.push_back(k + "=" + v);
  return absl::StrJoin(terms, ",");
}

// VersionSupported, once an image change was held (version_path.h).
void AddVersionCondition(const StatusInput& in, api::EtcdClusterStatus& s) {
  const EtcdCluster& cluster = *in.cluster;
  if (in.version_rule.empty() &&
      api::FindCondition(cluster.status, "VersionSupported") == nullptr) {
    return;
  }
  const bool ok = in.version_rule.empty();
  s.conditions.push_back(
      MakeCondition(cluster, "VersionSupported", ok, ok ? "Supported" : "UnsupportedVersionPath",
                    ok ? "The members run the etcd image the spec asks for, or are moving to it"
                       : in.version_rule + "; the members keep their image",
                    in.now));
}

// Ready's reason and message, and whether it is true.
struct Readiness {
  bool ready = false;
  std::string reason;
  std::string message;
  bool unknown = false;  // status "Unknown": quorum is back but has not held long enough
};

// An initialized cluster that cannot serve is QuorumLost, not
// WaitingForFirstQuorum: the member list did not come back, or fewer than a
// majority of its voting members answered (a hung member counts as down: the
// status calls have short deadlines).
Readiness ReadinessOf(const StatusInput& in, int healthy_voters, int voters) {
  const int desired = DesiredReplicas(*in.cluster);
  const bool initialized = StatusInitialized(*in.cluster);
  if (!in.problem.empty()) return {false, "ConfigurationProblem", in.problem};
  if (!in.etcd->members_known) {
    if (initialized) {
      return {
          false, kQuorumLost,
          in.etcd->error.empty() ? "No member answered" : "No quorum answered: " + in.etcd->error};
    }
    return {false, "WaitingForFirstQuorum",
            in.etcd->error.empty() ? "No member has answered yet"
                                   : "No quorum answered: " + in.etcd->error};
  }
  if (voters > 0 && healthy_voters * 2 <= voters) {
    return {
        false, kQuorumLost,
        absl::StrFormat("%d of %d voting members healthy: no majority", healthy_voters, voters)};
  }
  const std::string count = absl::StrFormat("%d of %d members healthy", healthy_voters, desired);
  if (in.converged && healthy_voters == desired && in.ready_pods >= desired) {
    return {true, "StatefulSetReady", count};
  }
  return {false, "StatefulSetNotReady", in.action_reason.empty() ? count : in.action_reason};
}

absl::Time TransitionTime(const api::Condition& c) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, c.last_transition_time, &t, &err)) {
    return absl::InfinitePast();
  }
  return t;
}

// Once a quorum loss was reported, anything but a new loss (or a problem of
// another kind) is QuorumRecovering until Ready's Unknown has lasted
// kQuorumSettle; a loss meanwhile starts over.
Readiness SettleAfterQuorumLoss(const EtcdCluster& cluster, Readiness r, absl::Time now) {
  const api::Condition* old = api::FindCondition(cluster.status, "Ready");
  if (old == nullptr || old->status == "True" || r.reason == kQuorumLost ||
      r.reason == "ConfigurationProblem") {
    return r;
  }
  const bool recovering = old->status == "Unknown" && old->reason == kQuorumRecovering;
  if (old->reason != kQuorumLost && !recovering) return r;
  if (r.ready && recovering && now - TransitionTime(*old) >= kQuorumSettle) return r;
  const std::string wait = absl::StrFormat("a majority answers again; Ready once it has for %d s",
                                           static_cast<int>(absl::ToInt64Seconds(kQuorumSettle)));
  return {.ready = false,
          .reason = kQuorumRecovering,
          .message = r.ready ? wait : r.message + "; " + wait,
          .unknown = true};
}

}  // namespace

absl::Duration RecheckReadyAfter(const api::EtcdClusterStatus& status, absl::Time now) {
  const api::Condition* ready = api::FindCondition(status, "Ready");
  if (ready == nullptr || ready->status != "Unknown" || ready->reason != kQuorumRecovering) {
    return absl::ZeroDuration();
  }
  return std::max(absl::Seconds(1), kQuorumSettle - (now - TransitionTime(*ready)));
}

std::map<int, std::string> RecordedStorageUids(const EtcdCluster& cluster, const EtcdView& view) {
  std::set<std::string> listed;
  for (const MemberStatus& ms : view.members) listed.insert(Hex(ms.member.id));
  std::map<int, std::string> out;
  for (const api::EtcdMemberStatus& m : cluster.status.members) {
    const int k = PodOrdinal(cluster.metadata.name, m.name);
    if (k < 0 || m.data_uid.empty()) continue;
    if (view.members_known && !listed.contains(m.id)) continue;
    out[k] = m.data_uid;
  }
  return out;
}

bool StatusInitialized(const EtcdCluster& cluster) {
  const api::Condition* c = api::FindCondition(cluster.status, "Initialized");
  return c != nullptr && c->status == "True";
}

api::EtcdClusterStatus BuildStatus(const StatusInput& in) {
  const EtcdCluster& cluster = *in.cluster;
  const std::map<int, std::string> recorded = RecordedStorageUids(cluster, *in.etcd);
  api::EtcdClusterStatus s{.observed_generation = cluster.metadata.generation,
                           .ready_replicas = in.ready_pods,
                           .replicas = in.statefulset_replicas,
                           .selector = PodSelector(cluster),
                           .client_endpoint = ServiceClientUrl(cluster)};
  int healthy_voters = 0, voters = 0;
  for (const MemberStatus& ms : in.etcd->members) {
    api::EtcdMemberStatus m = MemberOf(ms, *in.etcd);
    // Record the storage identity the member started on; keep the first one
    // seen so a recreated volume shows up as data loss.
    if (const int k = PodOrdinal(cluster.metadata.name, m.name); k >= 0) {
      if (auto r = recorded.find(k); r != recorded.end()) {
        m.data_uid = r->second;
      } else if (auto u = in.storage_uids.find(k); u != in.storage_uids.end() && m.healthy) {
        m.data_uid = u->second;
      }
    }
    if (m.is_leader) s.leader = m.name;
    if (!m.is_learner) ++voters;
    if (m.healthy && !m.is_learner) ++healthy_voters;
    s.members.push_back(std::move(m));
  }
  if (!in.etcd->members_known) {
    // The member list could not be read (quorum lost, members down): the
    // members recorded stay, their storage identity being the evidence that
    // keeps a member whose data is gone from rejoining under its old ID.
    // None is known to be healthy or leading until the list is read again.
    for (api::EtcdMemberStatus m : cluster.status.members) {
      m.healthy = false;
      m.is_leader = false;
      m.version.clear();
      s.members.push_back(std::move(m));
    }
  }
  s.lowest_version = LowestVersion(cluster.status.lowest_version, *in.etcd);
  s.minor_since = MinorSince(cluster.status.minor_since, *in.etcd);
  const bool initialized = in.etcd->members_known || StatusInitialized(cluster);
  s.conditions.push_back(
      MakeCondition(cluster, "Initialized", initialized,
                    initialized ? "InitializationComplete" : "InitializationStarted",
                    initialized ? "The cluster has formed its first quorum"
                                : "Waiting for the first member to start",
                    in.now));
  const Readiness r =
      SettleAfterQuorumLoss(cluster, ReadinessOf(in, healthy_voters, voters), in.now);
  s.conditions.push_back(MakeConditionStatus(cluster, "Ready",
                                             r.unknown ? "Unknown" : (r.ready ? "True" : "False"),
                                             r.reason, r.message, in.now));
  if (in.etcd->split_brain) {
    s.conditions.push_back(MakeCondition(cluster, "Error", true, "Splitbrain",
                                         "Members report different cluster IDs", in.now));
  }
  if (in.space_alarm || api::FindCondition(cluster.status, "SpaceAlarm") != nullptr) {
    s.conditions.push_back(MakeCondition(
        cluster, "SpaceAlarm", in.space_alarm, in.space_alarm ? "NoSpace" : "NoAlarm",
        in.space_alarm ? (in.space_message.empty() ? "etcd refuses writes: NOSPACE alarm"
                                                   : "etcd refuses writes: " + in.space_message)
                       : "No NOSPACE alarm is raised",
        in.now));
  }
  if (!in.storage.reason.empty() || api::FindCondition(cluster.status, "Storage") != nullptr) {
    s.conditions.push_back(MakeCondition(
        cluster, "Storage", in.storage.reason.empty(),
        in.storage.reason.empty() ? "AsRequested" : in.storage.reason,
        in.storage.reason.empty() ? "Every volume has the size and labels spec.storage asks for"
                                  : in.storage.message,
        in.now));
  }
  AddVersionCondition(in, s);
  s.client_secret_name = api::EffectiveTls(cluster).client_secret;
  if (AuthEnabledInSpec(cluster) && (in.auth_on || !cluster.status.auth_secret_name.empty())) {
    s.auth_secret_name = AuthSecretName(cluster);
  }
  return s;
}

}  // namespace quorum::etcdcluster
