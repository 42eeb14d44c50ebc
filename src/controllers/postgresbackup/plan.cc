#include "src/controllers/postgresbackup/plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/backup_phase.h"
#include "src/controllers/postgresbackup/info.h"
#include "src/controllers/postgresbackup/job.h"

namespace quorum::postgresbackup {
namespace {

bool IsFinal(const std::string& phase) {
  return phase == api::kBackupComplete || phase == api::kBackupFailed;
}

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
struct Wait {
  std::string reason, message;
};
Wait WhyWait(const BackupObservation& o) {
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

}  // namespace

bool ClusterReady(const api::PostgresCluster& cluster) {
  const api::Condition* ready = api::FindCondition(cluster.status, "Ready");
  return ready != nullptr && ready->status == "True";
}

BackupPlan PlanBackup(const BackupObservation& o) {
  const api::PostgresBackup& b = *o.backup;
  const api::PostgresBackupStatus& old = b.status;
  const int64_t gen = b.metadata.generation;
  BackupPlan plan;
  if (IsFinal(old.phase)) {
    plan.status = old;
    return plan;
  }
  api::PostgresBackupStatus& s = plan.status;
  s.observed_generation = gen;
  s.job_name = old.job_name;
  auto set = [&](const std::string& phase, bool complete, bool failed, const std::string& reason,
                 const std::string& message) {
    s.phase = phase;
    controllers::AppendBackupCondition(s, old, "Complete", complete, reason, message, gen, o.now);
    controllers::AppendBackupCondition(s, old, "Failed", failed, reason, message, gen, o.now);
  };
  if (!o.job.has_value()) {
    if (const Wait w = WhyWait(o); !w.reason.empty() && o.age >= api::kBackupStartTimeout) {
      set(std::string(api::kBackupFailed), false, true, "StartTimeout",
          absl::StrCat("not started within ", absl::FormatDuration(api::kBackupStartTimeout), ": ",
                       w.message));
      return plan;
    } else if (!w.reason.empty()) {
      set(std::string(api::kBackupPending), false, false, w.reason, w.message);
      plan.recheck_after = api::kBackupStartTimeout - o.age;
      return plan;
    }
    plan.create_job = true;
    for (const std::string& pod : MemberPods(*o.cluster)) {
      if (std::find(o.ready_pods.begin(), o.ready_pods.end(), pod) != o.ready_pods.end()) {
        plan.hosts.push_back(pod);
      }
    }
    plan.from_standby = plan.hosts.size() >= 2;
    if (plan.hosts.empty()) plan.hosts = MemberPods(*o.cluster);
    s.job_name = JobName(b);
    set(std::string(api::kBackupStarted), false, false, "JobCreated",
        absl::StrCat("Job ", s.job_name, " takes a ", b.spec.type, " backup into ",
                     b.spec.repo_name,
                     plan.from_standby ? " from a replica" : " from the primary"));
    return plan;
  }
  s.job_name = JobName(b);
  if (o.job->complete) {
    absl::StatusOr<api::PgBackRestBackupInfo> info = ParseBackupInfo(o.job->message);
    if (!info.ok()) {
      set(std::string(api::kBackupFailed), false, true, "ResultUnreadable",
          "the Job succeeded but its report does not parse (" +
              std::string(info.status().message()) + "): " + o.job->message.substr(0, 512));
      return plan;
    }
    if (info->repo.empty()) info->repo = b.spec.repo_name;
    s.backup = *info;
    set(std::string(api::kBackupComplete), true, false, "BackupComplete",
        absl::StrCat(info->type, " backup ", info->label, " in ", info->repo, ": ", info->size,
                     " bytes of database, ", info->repo_size, " bytes stored, WAL ",
                     info->wal_start, " to ", info->wal_stop));
    return plan;
  }
  if (o.job->failed) {
    set(std::string(api::kBackupFailed), false, true, "BackupFailed",
        o.job->message.empty() ? "the Job failed" : o.job->message.substr(0, 2048));
    return plan;
  }
  set(std::string(api::kBackupStarted), false, false, "JobRunning",
      "Job " + s.job_name + " takes the backup");
  return plan;
}

}  // namespace quorum::postgresbackup
