#include "src/controllers/etcdcluster/status.h"

#include "absl/strings/str_format.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/runtime/conditions.h"

namespace quorum::etcdcluster {
namespace {

Json Condition(const Json& cluster, const std::string& type, bool ok, const std::string& reason,
               const std::string& message, absl::Time now) {
  return runtime::MakeCondition(cluster, type, ok, reason, message, now);
}

std::string Hex(uint64_t id) { return absl::StrFormat("%x", id); }

}  // namespace

std::map<int, std::string> RecordedStorageUids(const Json& cluster) {
  std::map<int, std::string> out;
  const Json status = cluster.value("status", Json::object());
  const std::string name = NamesOf(cluster).cluster;
  for (const Json& m : status.value("members", Json::array())) {
    const int k = PodOrdinal(name, m.value("name", ""));
    if (k >= 0 && !m.value("dataUID", "").empty()) out[k] = m.value("dataUID", "");
  }
  return out;
}

bool StatusInitialized(const Json& cluster) {
  const Json c = runtime::FindCondition(cluster, "Initialized");
  return c.is_object() && c.value("status", "") == "True";
}

Json BuildStatus(const StatusInput& in) {
  const Json& cluster = *in.cluster;
  const EtcdView& etcd = *in.etcd;
  const int desired = DesiredReplicas(cluster);
  const std::string name = NamesOf(cluster).cluster;
  const std::map<int, std::string> recorded = RecordedStorageUids(cluster);

  Json members = Json::array();
  std::string leader;
  int healthy_voters = 0;
  for (const MemberStatus& ms : etcd.members) {
    const bool healthy =
        ms.status.has_value() && ms.status->leader != 0 && ms.status->errors.empty();
    const bool is_leader = etcd.leader_id && *etcd.leader_id == ms.member.id;
    Json m = {{"name", ms.member.name},
              {"id", Hex(ms.member.id)},
              {"peerURL", ms.member.peer_urls.empty() ? "" : ms.member.peer_urls.front()},
              {"isLearner", ms.member.is_learner},
              {"isLeader", is_leader},
              {"healthy", healthy}};
    if (ms.status) m["version"] = ms.status->version;
    const int k = PodOrdinal(name, ms.member.name);
    // Record the storage identity the member started on; keep the first one
    // seen so a recreated volume shows up as data loss.
    if (k >= 0) {
      if (auto r = recorded.find(k); r != recorded.end()) {
        m["dataUID"] = r->second;
      } else if (auto s = in.storage_uids.find(k); s != in.storage_uids.end() && healthy) {
        m["dataUID"] = s->second;
      }
    }
    if (is_leader) leader = ms.member.name;
    if (healthy && !ms.member.is_learner) ++healthy_voters;
    members.push_back(std::move(m));
  }

  const bool initialized = etcd.members_known || StatusInitialized(cluster);
  Json conditions = Json::array();
  conditions.push_back(Condition(cluster, "Initialized", initialized,
                                 initialized ? "InitializationComplete" : "InitializationStarted",
                                 initialized ? "The cluster has formed its first quorum"
                                             : "Waiting for the first member to start",
                                 in.now));
  std::string reason, message;
  bool ready = false;
  if (!in.problem.empty()) {
    reason = "ConfigurationProblem";
    message = in.problem;
  } else if (!etcd.members_known) {
    reason = "WaitingForFirstQuorum";
    message =
        etcd.error.empty() ? "No member has answered yet" : "No quorum answered: " + etcd.error;
  } else if (in.converged && healthy_voters == desired && in.ready_pods >= desired) {
    ready = true;
    reason = "StatefulSetReady";
    message = absl::StrFormat("%d of %d members healthy", healthy_voters, desired);
  } else {
    reason = "StatefulSetNotReady";
    message = in.action_reason.empty()
                  ? absl::StrFormat("%d of %d members healthy", healthy_voters, desired)
                  : in.action_reason;
  }
  conditions.push_back(Condition(cluster, "Ready", ready, reason, message, in.now));
  if (etcd.split_brain) {
    conditions.push_back(Condition(cluster, "Error", true, "Splitbrain",
                                   "Members report different cluster IDs", in.now));
  }

  Json status = {{"observedGeneration", cluster["metadata"].value("generation", 0)},
                 {"conditions", conditions},
                 {"readyReplicas", in.ready_pods},
                 {"members", members},
                 {"clientEndpoint", ServiceClientUrl(cluster)}};
  if (!leader.empty()) status["leader"] = leader;
  const Json tls = cluster.value("spec", Json::object())
                       .value("security", Json::object())
                       .value("tls", Json::object());
  if (!tls.value("clientSecret", "").empty()) status["clientSecretName"] = tls["clientSecret"];
  if (AuthEnabledInSpec(cluster)) status["authSecretName"] = AuthSecretName(cluster);
  return status;
}

}  // namespace quorum::etcdcluster
