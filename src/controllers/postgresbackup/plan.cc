#include "src/controllers/postgresbackup/plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
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

// The members the spec asks for, in its order, as observed (a pod not seen
// is left out).
std::vector<const MemberObservation*> SpecMembers(const BackupObservation& o) {
  std::vector<const MemberObservation*> out;
  for (const std::string& name : MemberPods(*o.cluster)) {
    for (const MemberObservation& m : o.members) {
      if (m.name == name) out.push_back(&m);
    }
  }
  return out;
}

// Why the cluster's status does not yet vouch for the ready members seen on
// the current template ("" when it does): it counts fewer members of a set
// on that template (plan.h).
std::string StatusBehind(const api::PostgresCluster& cluster,
                         const std::vector<const MemberObservation*>& members) {
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    const int64_t seen = std::count_if(members.begin(), members.end(), [&](const auto* m) {
      return m->set == set.name && m->ready && m->current;
    });
    int32_t updated = 0;
    for (const api::PostgresInstanceStatus& st : cluster.status.instances) {
      if (st.name == set.name) updated = st.updated_replicas;
    }
    if (updated < seen) {
      return absl::StrCat("instance set ", set.name, "'s status counts ", updated,
                          " members on the current pod template, ", seen,
                          " ready ones are seen on it");
    }
  }
  return "";
}

absl::Time ParsedOr(const std::string& rfc3339, absl::Time otherwise) {
  absl::Time t;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err) ? t : otherwise;
}

// How long `m` (not ready) still holds a backup back at `now`; zero when it
// does not (ready, down longer than kMemberSettle, or since unknown).
absl::Duration SettleLeft(const MemberObservation& m, absl::Time now) {
  if (m.ready || m.not_ready_since.empty()) return absl::ZeroDuration();
  const absl::Time since = ParsedOr(m.not_ready_since, absl::InfinitePast());
  return std::max(absl::ZeroDuration(), since + kMemberSettle - now);
}

// The first member that stopped being ready less than kMemberSettle ago.
const MemberObservation* Settling(const BackupObservation& o,
                                  const std::vector<const MemberObservation*>& members) {
  const absl::Time now = ParsedOr(o.now, absl::InfiniteFuture());
  for (const MemberObservation* m : members) {
    if (SettleLeft(*m, now) > absl::ZeroDuration()) return m;
  }
  return nullptr;
}

// Why the Job cannot be created yet (an empty reason: it can); the rule is
// plan.h's.
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
  const api::PostgresClusterStatus& status = o.cluster->status;
  if (status.observed_generation < o.cluster->metadata.generation) {
    return {"MembersUpdating",
            absl::StrCat("waiting for PostgresCluster ", name,
                         "'s members to run its current spec: its status is of generation ",
                         status.observed_generation, ", its spec of generation ",
                         o.cluster->metadata.generation)};
  }
  const std::vector<const MemberObservation*> members = SpecMembers(o);
  const bool primary_runs =
      std::any_of(members.begin(), members.end(),
                  [](const MemberObservation* m) { return m->ready && m->primary; });
  if (!primary_runs) {
    return {"NoRunningPrimary", "waiting for PostgresCluster " + name +
                                    " to have a running primary (a member pod that is Ready "
                                    "and labelled role=primary)"};
  }
  for (const MemberObservation* m : members) {
    if (m->ready && !m->current) {
      return {"MembersUpdating", "waiting for PostgresCluster " + name +
                                     "'s members to run its current spec: " + m->name +
                                     " is ready and runs an older pod template"};
    }
  }
  if (const MemberObservation* m = Settling(o, members)) {
    return {"MembersUpdating",
            "waiting for PostgresCluster " + name + "'s member " + m->name + ", not ready since " +
                m->not_ready_since + ", to come back (a member down longer than " +
                absl::FormatDuration(kMemberSettle) + " no longer holds a backup back)"};
  }
  if (const std::string behind = StatusBehind(*o.cluster, members); !behind.empty()) {
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
    // The wait above saw a ready primary: the hosts are never empty.
    const std::vector<const MemberObservation*> members = SpecMembers(o);
    for (const MemberObservation* m : members) {
      if (m->ready) plan.hosts.push_back(m->name);
    }
    // From a replica only while every member the spec asks for is up: with
    // one down the cluster may be mid-roll or just past a switchover, when a
    // replica's pg_control still names the old timeline until its next
    // restartpoint and pgBackRest refuses it ("WAL timeline 2 does not match
    // pg_control timeline 1", seen right after a roll's switchover). The
    // primary's is current once it has checkpointed after its promotion;
    // the Job's script tries once more when pgBackRest read it before that
    // (pgbackrest-backup.sh: the refused start forced the checkpoint).
    const bool all_up = members.size() == MemberPods(*o.cluster).size() &&
                        std::all_of(members.begin(), members.end(),
                                    [](const MemberObservation* m) { return m->ready; });
    plan.from_standby = all_up && plan.hosts.size() >= 2;
    kind.created_message =
        absl::StrCat("Job ", job, " takes a ", b.spec.type, " backup into ", b.spec.repo_name,
                     plan.from_standby ? " from a replica" : " from the primary");
  }
  static_cast<controllers::BackupPhasePlan<api::PostgresBackupStatus>&>(plan) =
      controllers::PlanBackupPhase(b.status, b.metadata.generation, o.job,
                                   {.now = o.now, .age = o.age}, kind);
  if (plan.recheck_after && o.cluster != nullptr) {
    // A member's settling runs out with no event: look again then.
    const absl::Time now = ParsedOr(o.now, absl::InfiniteFuture());
    for (const MemberObservation* m : SpecMembers(o)) {
      const absl::Duration left = SettleLeft(*m, now);
      if (left > absl::ZeroDuration()) {
        plan.recheck_after = std::min(*plan.recheck_after, left + absl::Seconds(1));
      }
    }
  }
  return plan;
}

}  // namespace quorum::postgresbackup
