// The PostgresBackup phase planner (pure): from the backup, its cluster and
// its Job (as the cache shows them) to the one action to take and the status
// to write; the lifecycle is common/backup_phase.h's, this file says what is
// PostgresBackup's own. Phases as EtcdBackup's: Pending (no cluster, the cluster has no
// such repository, it is not Ready, or its members do not all run its
// current spec yet: a
// repository just added is not archived into before they do; the cluster's
// watch wakes the backup), Started (the Job exists), Complete (the Job
// succeeded and reported the backup), Failed (the Job failed, with
// pgBackRest's error, or it could not start within api::kBackupStartTimeout
// of the backup's creation). Complete and Failed are final: a backup is never
// retried silently; the user creates another PostgresBackup (or a schedule
// does).
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

struct BackupObservation {
  const api::PostgresBackup* backup = nullptr;
  const api::PostgresCluster* cluster = nullptr;  // null: not found
  std::vector<std::string> ready_pods;            // the cluster's member pods that are Ready
  std::optional<controllers::JobOutcome> job;     // nullopt: no Job yet
  std::string now;                                // RFC 3339, for condition transitions
  absl::Duration age;                             // since the backup's creation
};

// create_job, the status to write and when to look again while Pending
// (common/backup_phase.h), and with create_job: the members the Job talks to
// (the ready ones; every member when none is known to be: pgBackRest waits
// minutes for each host that refuses), and whether a replica is ready to
// copy from.
struct BackupPlan : controllers::BackupPhasePlan<api::PostgresBackupStatus> {
  std::vector<std::string> hosts;
  bool from_standby = false;
};

// The cluster's Ready condition is True. (Not yet "a ready primary": Ready
// is also False, InstancesNotReady, in the middle of a roll, when a backup
// into a repository just added would start before the primary archives
// into it.)
bool ClusterReady(const api::PostgresCluster& cluster);

BackupPlan PlanBackup(const BackupObservation& o);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_PLAN_H_
