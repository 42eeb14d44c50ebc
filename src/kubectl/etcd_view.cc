// BuildEtcdStatusView: the EtcdCluster's stored status, its pods and its
// EtcdBackups as one view.
#include <algorithm>

#include "src/kubectl/status_view.h"

namespace quorum::kubectl {
namespace {

std::string RoleOf(const api::EtcdMemberStatus& m) {
  if (m.is_learner) return "learner";
  return m.is_leader ? "leader" : "follower";
}

std::string PodSummary(const PodInfo* pod) {
  if (pod == nullptr) return "missing";
  std::string s = pod->phase.empty() ? "Unknown" : pod->phase;
  s += pod->ready ? ", ready" : ", not ready";
  if (pod->deleting) s += ", terminating";
  return s;
}

const PodInfo* FindPod(const std::vector<PodInfo>& pods, const std::string& name) {
  auto it =
      std::find_if(pods.begin(), pods.end(), [&](const PodInfo& p) { return p.name == name; });
  return it == pods.end() ? nullptr : &*it;
}

std::vector<EtcdMemberRow> MemberRows(const api::EtcdClusterStatus& status,
                                      const std::vector<PodInfo>& pods) {
  std::vector<EtcdMemberRow> rows;
  for (const api::EtcdMemberStatus& m : status.members) {
    rows.push_back(
        {m.name, m.id, RoleOf(m), m.version, m.healthy, PodSummary(FindPod(pods, m.name))});
  }
  // A pod that is no member (yet): shown, so that a stuck join is visible.
  for (const PodInfo& pod : pods) {
    auto member = std::find_if(rows.begin(), rows.end(),
                               [&](const EtcdMemberRow& r) { return r.name == pod.name; });
    if (member == rows.end())
      rows.push_back({pod.name, "", "not a member", "", false, PodSummary(&pod)});
  }
  std::sort(rows.begin(), rows.end(),
            [](const EtcdMemberRow& a, const EtcdMemberRow& b) { return a.name < b.name; });
  return rows;
}

EtcdSecurityView SecurityOf(const api::EtcdCluster& cluster) {
  const api::EtcdTlsSpec tls = api::EffectiveTls(cluster);
  return {.peer_tls = !tls.peer_secret.empty(),
          .server_tls = !tls.server_secret.empty(),
          .client_cert_auth = !tls.client_trusted_ca_secret.empty(),
          .managed_certificates = tls.managed,
          .auth = cluster.spec.security.enable_auth};
}

BackupRow BackupRowOf(const api::EtcdBackup& b) {
  BackupRow row{.name = b.metadata.name, .phase = b.status.phase};
  row.time = b.metadata.creation_timestamp;
  if (b.status.snapshot) {
    row.detail = b.status.snapshot->uri;
    row.size = b.status.snapshot->size;
    if (!b.status.snapshot->taken_at.empty()) row.time = b.status.snapshot->taken_at;
  }
  return row;
}

}  // namespace

EtcdStatusView BuildEtcdStatusView(const api::EtcdCluster& cluster,
                                   const std::vector<PodInfo>& pods,
                                   const std::vector<api::EtcdBackup>& backups,
                                   const std::string& backups_unreadable) {
  const api::EtcdClusterStatus& s = cluster.status;
  EtcdStatusView v;
  v.ns = cluster.metadata.ns;
  v.name = cluster.metadata.name;
  v.phase = PhaseOf(s.conditions, cluster.metadata.deleting);
  v.health = HealthOf(s.conditions, cluster.metadata.deleting);
  v.desired_replicas = cluster.spec.replicas;
  v.ready_replicas = s.ready_replicas;
  v.leader = s.leader;
  v.client_endpoint = s.client_endpoint;
  v.lowest_version = s.lowest_version;
  v.members = MemberRows(s, pods);
  const api::Condition* space = api::FindCondition(s, "SpaceAlarm");
  if (space != nullptr && space->status == "True") v.alarms.push_back("NOSPACE");
  v.security = SecurityOf(cluster);
  std::vector<BackupRow> rows;
  for (const api::EtcdBackup& b : backups) {
    if (b.spec.cluster_ref == cluster.metadata.name) rows.push_back(BackupRowOf(b));
  }
  v.backups = SummarizeBackups(rows, backups_unreadable);
  v.conditions = ConditionRows(s.conditions);
  return v;
}

}  // namespace quorum::kubectl
