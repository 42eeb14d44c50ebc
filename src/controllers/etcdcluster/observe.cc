#include "src/controllers/etcdcluster/observe.h"

#include "absl/strings/numbers.h"

namespace quorum::etcdcluster {

EtcdView ObserveEtcd(etcd::Client& client) {
  EtcdView view;
  absl::StatusOr<etcd::MemberListResponse> list = client.MemberList();
  if (!list.ok()) {
    view.error = std::string(list.status().message());
    return view;
  }
  view.members_known = true;
  view.cluster_id = list->cluster_id;
  for (const etcd::Member& m : list->members) {
    MemberStatus ms{.member = m};
    if (!m.client_urls.empty()) {
      absl::StatusOr<etcd::StatusResponse> s = client.Status(m.client_urls.front());
      if (s.ok()) {
        ms.status = *s;
        if (s->cluster_id != 0 && s->cluster_id != view.cluster_id) view.split_brain = true;
        // A member that says it leads is authoritative; a follower's view
        // may be stale for a moment.
        if (s->leader != 0 && (s->leader == m.id || !view.leader_id)) view.leader_id = s->leader;
      }
    }
    view.members.push_back(std::move(ms));
  }
  return view;
}

int PodOrdinal(const std::string& cluster, const std::string& pod_name) {
  if (pod_name.size() <= cluster.size() + 1 || pod_name.compare(0, cluster.size(), cluster) != 0 ||
      pod_name[cluster.size()] != '-') {
    return -1;
  }
  int ordinal = -1;
  if (!absl::SimpleAtoi(pod_name.substr(cluster.size() + 1), &ordinal)) return -1;
  return ordinal;
}

std::vector<etcd::PodView> ObservePods(const Json& cluster,
                                       const std::vector<runtime::ObjectPtr>& pods,
                                       const std::map<int, std::string>& storage_uids,
                                       const std::map<int, std::string>& recorded_uids, int count) {
  std::vector<etcd::PodView> out;
  for (int k = 0; k < count; ++k) out.push_back({.ordinal = k});
  const std::string name = NamesOf(cluster).cluster;
  for (const runtime::ObjectPtr& pod : pods) {
    const int k = PodOrdinal(name, (*pod)["metadata"].value("name", ""));
    if (k < 0) continue;
    while (static_cast<int>(out.size()) <= k)
      out.push_back({.ordinal = static_cast<int>(out.size())});
    etcd::PodView& v = out[k];
    v.exists = !(*pod)["metadata"].contains("deletionTimestamp");
    const Json status = pod->value("status", Json::object());
    for (const Json& c : status.value("conditions", Json::array())) {
      if (c.value("type", "") == "Ready") v.ready = c.value("status", "") == "True";
    }
    for (const Json& cs : status.value("containerStatuses", Json::array())) {
      if (cs.value("name", "") != kContainerName) continue;
      const std::string waiting =
          cs.value("state", Json::object()).value("waiting", Json::object()).value("reason", "");
      v.crash_looping = waiting == "CrashLoopBackOff" || cs.value("restartCount", 0) >= 3;
    }
  }
  for (etcd::PodView& v : out) {
    auto now = storage_uids.find(v.ordinal);
    auto then = recorded_uids.find(v.ordinal);
    v.data_lost = now != storage_uids.end() && then != recorded_uids.end() &&
                  !then->second.empty() && now->second != then->second;
  }
  return out;
}

etcd::Observation BuildObservation(const Json& cluster, int statefulset_replicas, bool bootstrapped,
                                   const EtcdView& view, std::vector<etcd::PodView> pods) {
  etcd::Observation o;
  o.desired_replicas = DesiredReplicas(cluster);
  o.statefulset_replicas = statefulset_replicas;
  o.bootstrapped = bootstrapped || view.members_known;
  o.members_known = view.members_known;
  o.leader_id = view.leader_id;
  for (const MemberStatus& ms : view.members) {
    etcd::MemberView m{.id = ms.member.id,
                       .name = ms.member.name,
                       .peer_url = ms.member.peer_urls.empty() ? "" : ms.member.peer_urls.front(),
                       .is_learner = ms.member.is_learner,
                       .started = !ms.member.name.empty()};
    if (ms.status) m.healthy = ms.status->leader != 0 && ms.status->errors.empty();
    o.members.push_back(std::move(m));
  }
  o.pods = std::move(pods);
  o.member_name = [cluster](int k) { return MemberName(cluster, k); };
  o.peer_url = [cluster](int k) { return PeerUrl(cluster, k); };
  return o;
}

}  // namespace quorum::etcdcluster
