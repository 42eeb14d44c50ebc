// BuildPostgresStatusView: the PostgresCluster's stored status, its member
// pods (role label as Patroni and the operator keep it) and its
// PostgresBackups as one view.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/kubectl/status_view.h"
#include "src/patroni/role.h"

namespace quorum::kubectl {
namespace {

std::string Label(const PodInfo& pod, std::string_view key) {
  auto it = pod.labels.find(std::string(key));
  return it == pod.labels.end() ? "" : it->second;
}

// The kubernetes DCS with the objects Patroni keeps it in, once recorded:
// "kubernetes (ConfigMaps)" or "kubernetes (Endpoints)".
std::string DcsOf(const api::PostgresDcsSpec& dcs, const std::string& dcs_objects) {
  if (!dcs.UsesEtcd()) {
    return dcs_objects.empty() ? dcs.type : absl::StrCat(dcs.type, " (", dcs_objects, ")");
  }
  if (!dcs.etcd.cluster_ref.empty())
    return absl::StrCat("etcd (EtcdCluster ", dcs.etcd.cluster_ref, ")");
  return absl::StrCat("etcd (", absl::StrJoin(dcs.etcd.endpoints, ", "), ")");
}

std::vector<PostgresInstanceSetRow> InstanceSetRows(const api::PostgresCluster& cluster) {
  std::vector<PostgresInstanceSetRow> rows;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    PostgresInstanceSetRow row{.name = set.name, .desired = set.replicas};
    for (const api::PostgresInstanceStatus& st : cluster.status.instances) {
      if (st.name != set.name) continue;
      row.ready = st.ready_replicas;
      row.updated = st.updated_replicas;
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<PostgresMemberRow> MemberRows(const std::vector<PodInfo>& pods) {
  std::vector<PostgresMemberRow> rows;
  for (const PodInfo& pod : pods) {
    rows.push_back({.pod = pod.name,
                    .instance_set = Label(pod, api::kInstanceSetLabel),
                    .role = Label(pod, patroni::kRoleLabel),
                    .ready = pod.ready,
                    .phase = pod.deleting ? "Terminating" : pod.phase,
                    .restarts = pod.restarts});
  }
  return rows;
}

std::vector<PostgresRepoRow> RepoRows(const api::PostgresClusterStatus& s) {
  std::vector<PostgresRepoRow> rows;
  auto label = [](const std::optional<api::PgBackRestBackupRef>& ref) {
    return ref ? ref->label : std::string();
  };
  for (const api::PgBackRestRepoStatus& r : s.backup_repos) {
    rows.push_back({r.name, label(r.full), label(r.differential), label(r.incremental),
                    r.recoverable_from, r.recoverable_to, r.wal_archived_up_to});
  }
  return rows;
}

BackupRow BackupRowOf(const api::PostgresBackup& b) {
  BackupRow row{.name = b.metadata.name, .phase = b.status.phase, .type = b.spec.type};
  row.time = b.metadata.creation_timestamp;
  if (b.status.backup) {
    const api::PgBackRestBackupInfo& info = *b.status.backup;
    row.detail = absl::StrCat(info.label, " in ", info.repo.empty() ? b.spec.repo_name : info.repo);
    row.size = info.size;
    if (!info.stop_time.empty()) row.time = info.stop_time;
  }
  return row;
}

std::string SwitchoverOf(const api::PostgresPatroniStatus& p) {
  if (!p.switchover) return "";
  const api::PostgresSwitchoverStatus& s = *p.switchover;
  std::string out = absl::StrCat(s.type, " ", s.from, " -> ", s.to.empty() ? "?" : s.to, ": ",
                                 s.result.empty() ? "pending" : s.result);
  if (!s.time.empty()) absl::StrAppend(&out, " at ", s.time);
  if (!s.message.empty() && s.result != "Succeeded") absl::StrAppend(&out, " (", s.message, ")");
  return out;
}

std::string RestoreOf(const api::PostgresClusterStatus& s) {
  if (!s.restore) return "";
  const api::PgBackRestRestoreStatus& r = *s.restore;
  std::string out = absl::StrCat(r.phase, " (", r.id, ")");
  if (!r.started_at.empty()) absl::StrAppend(&out, " started ", r.started_at);
  if (!r.finished_at.empty()) absl::StrAppend(&out, ", finished ", r.finished_at);
  if (!r.message.empty()) absl::StrAppend(&out, ": ", r.message);
  return out;
}

// status.majorUpgrade in one line: "15 → 17 Upgrading since T: message".
std::string MajorUpgradeOf(const api::PostgresClusterStatus& s) {
  if (!s.major_upgrade) return "";
  const api::PostgresMajorUpgradeStatus& u = *s.major_upgrade;
  std::string out = absl::StrCat(u.from, " → ", u.to, " ", u.phase);
  if (!u.started_at.empty()) absl::StrAppend(&out, " started ", u.started_at);
  if (!u.finished_at.empty()) absl::StrAppend(&out, ", finished ", u.finished_at);
  if (!u.message.empty()) absl::StrAppend(&out, ": ", u.message);
  return out;
}

}  // namespace

PostgresStatusView BuildPostgresStatusView(const api::PostgresCluster& cluster,
                                           const std::vector<PodInfo>& pods,
                                           const std::vector<api::PostgresBackup>& backups,
                                           const std::string& backups_unreadable) {
  const api::PostgresClusterStatus& s = cluster.status;
  PostgresStatusView v;
  v.ns = cluster.metadata.ns;
  v.name = cluster.metadata.name;
  v.phase = PhaseOf(s.conditions, cluster.metadata.deleting);
  v.health = HealthOf(s.conditions, cluster.metadata.deleting);
  // The data's major (the spec's until an upgrade to it has succeeded).
  v.postgres_version = s.postgres_version != 0 ? s.postgres_version : cluster.spec.postgres_version;
  v.primary = s.primary;
  v.primary_service = s.primary_service;
  v.replica_service = s.replica_service;
  v.dcs = DcsOf(cluster.spec.patroni.dcs, s.patroni.dcs_objects);
  v.instance_sets = InstanceSetRows(cluster);
  v.members = MemberRows(pods);
  v.repos = RepoRows(s);
  std::vector<BackupRow> rows;
  for (const api::PostgresBackup& b : backups) {
    if (b.spec.cluster_ref == cluster.metadata.name) rows.push_back(BackupRowOf(b));
  }
  v.backups = SummarizeBackups(rows, backups_unreadable);
  v.last_switchover = SwitchoverOf(s.patroni);
  v.restore = RestoreOf(s);
  v.major_upgrade = MajorUpgradeOf(s);
  v.conditions = ConditionRows(s.conditions);
  return v;
}

}  // namespace quorum::kubectl
