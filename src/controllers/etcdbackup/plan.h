// The EtcdBackup phase planner (pure): from the backup, its cluster and its
// Job (as the cache shows them) to the one action to take and the status to
// write. Phases: Pending (no cluster, or not Ready yet: the cluster's watch
// wakes the backup), Started (the Job exists), Complete (the Job succeeded
// and reported a verified snapshot), Failed (the Job failed, with its error).
// Complete and Failed are final: a backup is never retried silently; the
// user creates another EtcdBackup (or a schedule does).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_

#include <optional>
#include <string>

#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"

namespace quorum::etcdbackup {

// What a Job says, with its pod's termination message.
struct JobOutcome {
  bool complete = false;
  bool failed = false;
  std::string message;  // the container's termination message, else the Job's condition message
};

// Reads the Job's Complete/Failed conditions and the termination message of
// its pods (the items of a pod list, any order; the last terminated wins).
JobOutcome OutcomeOf(const nlohmann::json& job, const nlohmann::json& pods);

struct BackupObservation {
  const api::EtcdBackup* backup = nullptr;
  const api::EtcdCluster* cluster = nullptr;  // null: not found
  bool cluster_ready = false;                 // its Ready condition is True
  std::optional<JobOutcome> job;              // nullopt: no Job yet
  std::string now;                            // RFC 3339, for condition transitions
};

struct BackupPlan {
  bool create_job = false;
  api::EtcdBackupStatus status;
};

BackupPlan PlanBackup(const BackupObservation& o);

}  // namespace quorum::etcdbackup

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUP_PLAN_H_
