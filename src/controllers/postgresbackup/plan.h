// The PostgresBackup phase planner (pure): from the backup, its cluster and
// its Job (as the cache shows them) to the one action to take and the status
// to write; the lifecycle is common/backup_phase.h's, this file says what is
// PostgresBackup's own. Phases as EtcdBackup's: Pending, Started (the Job
// exists), Complete (the Job succeeded and reported the backup), Failed (the
// Job failed, with pgBackRest's error, or it could not start within
// api::kBackupStartTimeout of the backup's creation, with what it waited
// for). Complete and Failed are final: a backup is never retried silently;
// the user creates another PostgresBackup (or a schedule does).
//
// When a backup starts (issue 33: backups matter most while a member is
// down, so the cluster's Ready — every member ready — is not the gate). It
// is Pending, and the cluster's watch (its status, its pods) wakes it, while:
//   * ClusterNotFound / RepoNotFound: no such cluster, or no such repository
//     in its spec.backups.pgbackrest.repos;
//   * MembersUpdating: the cluster's operator has not seen its latest
//     generation yet, or a member that is ready does not run its
//     StatefulSet's current pod template — a repository just added reaches
//     archive_command and the members' certificates only through a roll,
//     and pgBackRest fails a backup whose WAL does not reach the repository.
//     The cluster's status must agree: an instance set whose
//     status.instances[].updatedReplicas is below the ready members seen on
//     the current template waits too (just after the operator writes a new
//     template, the cached StatefulSet may still show the old one, and the
//     status counts none updated: postgrescluster/status.cc);
//   * NoRunningPrimary: no member the spec asks for is both Ready and
//     labelled role=primary (patroni/role.h; Ready for a primary means it
//     holds the leader lock and accepts writes, patroni/readiness.h).
// A member that is not ready never holds a backup back, whatever its
// template: the Job does not talk to it, and it does not archive. This is
// also the rule for a member that is down and not yet rolled: the rollout
// replaces an outdated member that is not ready first (rollout.h), and if it
// cannot (its node is gone and the pod stays), the backup still runs from
// the ready members. The Job's hosts are the ready members only, the primary
// always among them: pgBackRest waits minutes for each host that refuses.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/common/backup_phase.h"
#include "src/controllers/common/job_outcome.h"

namespace quorum::postgresbackup {

// One member pod of the cluster, as the cache shows it.
struct MemberObservation {
  std::string name;
  std::string set;       // its instance set (label postgres.quorum.dev/instance-set)
  bool ready = false;    // its Ready condition is True
  bool primary = false;  // labelled role=primary
  // Known to run its StatefulSet's current template: its
  // controller-revision-hash is the StatefulSet's status.updateRevision, and
  // that status is of the StatefulSet's latest generation.
  bool current = false;
  // Not ready: since when (its Ready condition's lastTransitionTime, RFC 3339;
  // "" unknown). A member not ready for less than kMemberSettle holds a
  // backup back (see PlanBackup).
  std::string not_ready_since;
  bool operator==(const MemberObservation&) const = default;
};

// How long a member that stopped being ready holds a backup back: a roll, a
// restart or a switchover brings it back within seconds, and right after a
// role change the new primary's pg_control may still name the old timeline
// (pgBackRest: "WAL timeline 2 does not match pg_control timeline 1"); a
// member down longer than this is down, and the backup goes on without it.
inline constexpr absl::Duration kMemberSettle = absl::Minutes(2);

struct BackupObservation {
  const api::PostgresBackup* backup = nullptr;
  const api::PostgresCluster* cluster = nullptr;  // null: not found
  std::vector<MemberObservation> members;         // the cluster's member pods
  std::optional<controllers::JobOutcome> job;     // nullopt: no Job yet
  std::string now;                                // RFC 3339, for condition transitions
  absl::Duration age;                             // since the backup's creation
};

// create_job, the status to write and when to look again while Pending
// (common/backup_phase.h), and with create_job: the members the Job talks to
// (the ready ones the spec asks for, in its order; never a member that is
// not ready), and whether to copy from a ready replica among them: only
// while every member the spec asks for is ready (plan.cc says why).
struct BackupPlan : controllers::BackupPhasePlan<api::PostgresBackupStatus> {
  std::vector<std::string> hosts;
  bool from_standby = false;
};

BackupPlan PlanBackup(const BackupObservation& o);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_PLAN_H_
