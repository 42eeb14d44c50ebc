// The EtcdBackup phase planner (pure): from the backup, its cluster and its
// Job (as the cache shows them) to the one action to take and the status to
// write; the lifecycle is common/backup_phase.h's, this file says what is
// EtcdBackup's own. Phases: Pending (no cluster, or no quorum yet — a member down does
// not hold a backup back: api::HasQuorum; the cluster's watch wakes the
// backup), Started (the Job exists), Complete (the Job succeeded and reported
// a verified snapshot), Failed (the Job failed, with its error, or it could
// not start within api::kBackupStartTimeout of the backup's creation).
// Complete and Failed are final: a backup is never retried silently; the
// user creates another EtcdBackup (or a schedule does).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"
#include "src/controllers/common/backup_phase.h"
#include "src/controllers/common/job_outcome.h"

namespace quorum::etcdbackup {

using controllers::JobOutcome;
using controllers::OutcomeOf;

struct BackupObservation {
  const api::EtcdBackup* backup = nullptr;
  const api::EtcdCluster* cluster = nullptr;  // null: not found
  bool cluster_serves = false;                // api::HasQuorum of its status
  std::optional<JobOutcome> job;              // nullopt: no Job yet
  std::string now;                            // RFC 3339, for condition transitions
  absl::Duration age;                         // since the backup's creation
};

// create_job, the status to write, and when to look again while Pending.
using BackupPlan = controllers::BackupPhasePlan<api::EtcdBackupStatus>;

BackupPlan PlanBackup(const BackupObservation& o);

}  // namespace quorum::etcdbackup

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_
