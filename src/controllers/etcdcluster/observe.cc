#include "src/controllers/etcdcluster/observe.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "src/base/json_access.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/etcdcluster/resources.h"

namespace quorum::etcdcluster {
namespace {

PodInfo PodInfoOf(const Json& pod, const std::string& cluster, absl::Time now) {
  const Json meta = pod.value("metadata", Json::object());
  const Json status = pod.value("status", Json::object());
  PodInfo p{.name = meta.value("name", ""),
            .uid = meta.value("uid", ""),
            .has_ip = status.contains("podIP"),
            .deleting = meta.contains("deletionTimestamp"),
            .revision = meta.value("labels", Json::object()).value("controller-revision-hash", "")};
  p.ordinal = PodOrdinal(cluster, p.name);
  for (const Json& c : status.value("conditions", Json::array())) {
    if (c.value("type", "") == "Ready") p.ready = c.value("status", "") == "True";
  }
  for (const Json& cs : status.value("containerStatuses", Json::array())) {
    if (cs.value("name", "") != kContainerName) continue;
    const Json state = cs.value("state", Json::object());
    const std::string waiting = state.value("waiting", Json::object()).value("reason", "");
    p.crash_looping = waiting == "CrashLoopBackOff" || cs.value("restartCount", 0) >= 3;
    const std::string started = state.value("running", Json::object()).value("startedAt", "");
    absl::Time since;
    std::string err;
    if (!started.empty() && absl::ParseTime(absl::RFC3339_full, started, &since, &err)) {
      p.running_for = std::max(now - since, absl::ZeroDuration());
    }
  }
  return p;
}

std::optional<BootstrapState> StateOf(const runtime::ObjectPtr& configmap) {
  if (configmap == nullptr) return std::nullopt;
  const Json data = configmap->value("data", Json::object());
  BootstrapState state{.state = data.value("ETCD_INITIAL_CLUSTER_STATE", "new")};
  for (absl::string_view entry :
       absl::StrSplit(data.value("ETCD_INITIAL_CLUSTER", ""), ',', absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq != absl::string_view::npos) {
      state.members.emplace_back(std::string(entry.substr(0, eq)),
                                 std::string(entry.substr(eq + 1)));
    }
  }
  return state;
}

// The data claims older than the cluster (controllers::ClaimsOlderThan).
std::vector<std::string> LeftoverClaims(const runtime::Cache& cache, const EtcdCluster& cluster) {
  if (cluster.spec.storage.empty_dir) return {};
  const Names n = NamesOf(cluster);
  const std::string prefix = std::string(kDataVolume) + "-" + n.cluster + "-";
  std::vector<runtime::ObjectPtr> data;
  for (const runtime::ObjectPtr& pvc : cache.ByInstance(kPvcs, n.ns, n.cluster)) {
    if (absl::StartsWith(json_access::Str(json_access::At(*pvc, {"metadata", "name"})), prefix)) {
      data.push_back(pvc);
    }
  }
  return controllers::ClaimsOlderThan(data, cluster.metadata.creation_timestamp);
}

}  // namespace

World ObserveWorld(const runtime::Cache& cache, const EtcdCluster& cluster, absl::Time now) {
  const Names n = NamesOf(cluster);
  World w;
  if (runtime::ObjectPtr sts = cache.Get(kStatefulSets, n.ns, n.statefulset)) {
    w.statefulset_replicas = controllers::StatefulSetReplicas(*sts, 0);
    w.update_revision = controllers::StatefulSetUpdateRevision(*sts);
  }
  for (const runtime::ObjectPtr& pod : cache.ByInstance(kPods, n.ns, n.cluster)) {
    const Json labels = (*pod)["metadata"].value("labels", Json::object());
    if (labels.value("app.kubernetes.io/instance", "") != n.cluster ||
        labels.value("app.kubernetes.io/name", "") != "etcd") {
      continue;
    }
    PodInfo p = PodInfoOf(*pod, n.cluster, now);
    if (p.ordinal >= 0 && cluster.spec.storage.empty_dir) {
      // A pod being deleted is no member's storage any more (its successor
      // may already run the member of its ordinal).
      if (!p.deleting) w.storage_uids[p.ordinal] = p.uid;
    } else if (p.ordinal >= 0) {
      const std::string claim = std::string(kDataVolume) + "-" + p.name;
      if (runtime::ObjectPtr pvc = cache.Get(kPvcs, n.ns, claim)) {
        w.storage_uids[p.ordinal] = json_access::Str(json_access::At(*pvc, {"metadata", "uid"}));
      }
    }
    w.pods.push_back(std::move(p));
  }
  w.state_configmap = StateOf(cache.Get(kConfigMaps, n.ns, n.state_configmap));
  w.leftover_claims = LeftoverClaims(cache, cluster);
  return w;
}

Topology TopologyOf(const EtcdCluster& cluster) {
  return {.member_name = [cluster](int k) { return MemberName(cluster, k); },
          .peer_url = [cluster](int k) { return PeerUrl(cluster, k); },
          .client_url = [cluster](int k) { return MemberClientUrl(cluster, k); }};
}

EtcdView ObserveEtcd(etcd::Client& client) {
  EtcdView view;
  absl::StatusOr<etcd::MemberListResponse> list =
      client.MemberList(/*linearizable=*/true, kObserveTimeout);
  if (!list.ok()) {
    view.error = std::string(list.status().message());
    return view;
  }
  view.members_known = true;
  view.cluster_id = list->cluster_id;
  for (const etcd::Member& m : list->members) {
    MemberStatus ms{.member = m};
    if (!m.client_urls.empty()) {
      absl::StatusOr<etcd::StatusResponse> s =
          client.Status(m.client_urls.front(), kObserveTimeout);
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

EtcdConnection ObserveMembers(const EtcdClientFactory& factory, etcd::ClientConfig config,
                              const Topology& topology, int ordinals) {
  for (int k = 0; k < std::max(ordinals, 1); ++k)
    config.endpoints.push_back(topology.client_url(k));
  EtcdConnection out;
  absl::StatusOr<std::unique_ptr<etcd::Client>> c = factory(std::move(config));
  if (!c.ok()) {
    out.view.error = std::string(c.status().message());
    return out;
  }
  out.client = *std::move(c);
  out.view = ObserveEtcd(*out.client);
  return out;
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

std::vector<etcd::PodView> ObservePods(const std::vector<PodInfo>& pods,
                                       const std::map<int, std::string>& storage_uids,
                                       const std::map<int, std::string>& recorded_uids) {
  std::map<int, etcd::PodView> by_ordinal;
  for (const PodInfo& pod : pods) {
    const int k = pod.ordinal;
    if (k < 0) continue;
    etcd::PodView& v = by_ordinal[k];
    v.ordinal = k;
    v.exists = !pod.deleting;
    v.ready = pod.ready;
    v.crash_looping = pod.crash_looping;
    v.running_for = pod.running_for;
  }
  std::vector<etcd::PodView> out;
  out.reserve(by_ordinal.size());
  for (auto& [k, v] : by_ordinal) out.push_back(v);
  for (etcd::PodView& v : out) {
    auto now = storage_uids.find(v.ordinal);
    auto then = recorded_uids.find(v.ordinal);
    v.data_lost = now != storage_uids.end() && then != recorded_uids.end() &&
                  !then->second.empty() && now->second != then->second;
  }
  return out;
}

etcd::Observation BuildObservation(const Topology& topology, int desired_replicas,
                                   int statefulset_replicas, bool bootstrapped,
                                   const EtcdView& view, std::vector<etcd::PodView> pods) {
  etcd::Observation o;
  o.desired_replicas = desired_replicas;
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
  o.member_name = topology.member_name;
  o.peer_url = topology.peer_url;
  return o;
}

}  // namespace quorum::etcdcluster
