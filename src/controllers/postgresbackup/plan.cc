#include "src/controllers/postgresbackup/plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/backup_phase.h"
#include "src/controllers/common/backup_phase.h"
#include "src/controllers/postgresbackup/info.h"
#include "src/controllers/postgresbackup/job.h"

namespace quorum::postgresbackup {
namespace {

bool HasRepo(const api::PostgresCluster& cluster, const std::string& repo) {
  if (!cluster.spec.backups.pgbackrest.has_value()) return false;
  for (const api::PgBackRestRepo& r : cluster.spec.backups.pgbackrest->repos) {
    if (r.name == repo) return true;
  }
  return false;
}

// Why the members may not archive into the repositories of the current
// spec yet ("" when they may): the cluster's operator has not seen its
// latest generation, or an instance set has members on an older pod
// template (a repository added to spec.backups reaches archive_command and
// the members' certificates only through the ConfigMap and a roll).
std::string MembersBehind(const api::PostgresCluster& cluster) {
  if (cluster.status.observed_generation < cluster.metadata.generation) {
    return absl::StrCat("its status is of generation ", cluster.status.observed_generation,
                        ", its spec of generation ", cluster.metadata.generation);
  }
  // Every member the spec asks for, up or down: a member down still has its
  // pod (at the current revision when it was rolled); a pod missing is one
  // being replaced, e.g. mid-roll, when the repository may not be ready yet.
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    int32_t updated = 0;
    for (const api::PostgresInstanceStatus& st : cluster.status.instances) {
      if (st.name == set.name) updated = st.updated_replicas;
    }
    if (updated < set.replicas) {
      return absl::StrCat("instance set ", set.name, " has ", updated, " of ", set.replicas,
                          " members on the current pod template");
    }
  }
  return "";
}

// Why the Job cannot be created yet (an empty reason: it can).
controllers::BackupWait WhyWait(const BackupObservation& o) {
  const std::string& name = o.backup->spec.cluster_ref;
  const std::string& repo = o.backup->spec.repo_name;
  if (o.cluster == nullptr) {
    return {"ClusterNotFound", "PostgresCluster " + name + " does not exist in this namespace"};
  }
  if (!HasRepo(*o.cluster, repo)) {
    return {"RepoNotFound", "PostgresCluster " + name + " has no repository " + repo +
                                " in spec.backups.pgbackrest.repos"};
  }
  if (!ClusterReady(*o.cluster)) {
    return {"ClusterNotReady", "waiting for PostgresCluster " + name + " to be Ready"};
  }
  if (const std::string behind = MembersBehind(*o.cluster); !behind.empty()) {
    return {"MembersUpdating", "waiting for PostgresCluster " + name +
                                   "'s members to run its current spec: " + behind};
  }
  return {};
}

// The backup the Job reports, into status.backup.
controllers::BackupReport ReadReport(const api::PostgresBackup& b, const std::string& report,
                                     api::PostgresBackupStatus& s) {
  absl::StatusOr<api::PgBackRestBackupInfo> info = ParseBackupInfo(report);
  if (!info.ok()) {
    return {.message = "the Job succeeded but its report does not parse (" +
                       std::string(info.status().message()) + "): " + report.substr(0, 512)};
  }
  if (info->repo.empty()) info->repo = b.spec.repo_name;
  s.backup = *info;
  return {.readable = true,
          .message = absl::StrCat(info->type, " backup ", info->label, " in ", info->repo, ": ",
                                  info->size, " bytes of database, ", info->repo_size,
                                  " bytes stored, WAL ", info->wal_start, " to ", info->wal_stop)};
}

}  // namespace

bool ClusterReady(const api::PostgresCluster& cluster) {
  const api::Condition* ready = api::FindCondition(cluster.status, "Ready");
  return ready != nullptr && ready->status == "True";
}

BackupPlan PlanBackup(const BackupObservation& o) {
  const api::PostgresBackup& b = *o.backup;
  const std::string job = JobName(b);
  controllers::BackupPhaseKind<api::PostgresBackupStatus> kind{
      .job_name = job,
      .wait = WhyWait(o),
      .running_message = "Job " + job + " takes the backup",
      .complete_reason = "BackupComplete",
      .failed_reason = "BackupFailed",
      .failed_message_limit = 2048,
      .read_report = [&b](const std::string& report, api::PostgresBackupStatus& s) {
        return ReadReport(b, report, s);
      }};
  BackupPlan plan;
  if (!o.job.has_value() && kind.wait.reason.empty() &&
      !controllers::IsFinalBackupPhase(b.status.phase)) {
    for (const std::string& pod : MemberPods(*o.cluster)) {
      if (std::find(o.ready_pods.begin(), o.ready_pods.end(), pod) != o.ready_pods.end()) {
        plan.hosts.push_back(pod);
      }
    }
    plan.from_standby = plan.hosts.size() >= 2;
    if (plan.hosts.empty()) plan.hosts = MemberPods(*o.cluster);
    kind.created_message =
        absl::StrCat("Job ", job, " takes a ", b.spec.type, " backup into ", b.spec.repo_name,
                     plan.from_standby ? " from a replica" : " from the primary");
  }
  static_cast<controllers::BackupPhasePlan<api::PostgresBackupStatus>&>(plan) =
      controllers::PlanBackupPhase(b.status, b.metadata.generation, o.job,
                                   {.now = o.now, .age = o.age}, kind);
  return plan;
}

}  // namespace quorum::postgresbackup
