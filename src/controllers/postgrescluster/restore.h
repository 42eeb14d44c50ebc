// The in-place restore of a PostgresCluster (spec.backups.pgbackrest.restore,
// docs/backup.md): the spec says what to restore (a repository of the
// cluster's own, a backup set, a target), the annotation
// api::kRestoreTriggerAnnotation says when — each new value once. The state
// lives in status.backups.pgbackrest.restore, so an operator that restarts at
// any step carries on from it:
//
//   (new trigger) → Checking: nothing stops until the primary's newest WAL
//       is archived (restore_check.h); archiving that fails or lags answers
//       Failed, nothing stopped.
//   → Stopping: the StatefulSets are scaled to 0. Once no
//       member pod is left, Patroni's state is removed from the DCS (etcd:
//       the keys under /<namespace>/<scope>/; kubernetes: the leader, config,
//       failover and sync Endpoints) and the members' data volumes are
//       deleted — a Patroni still running would write its keys back, and the
//       old "initialize" key or data would stop the new bootstrap.
//   → Restoring: once no volume is left, the StatefulSets come back; the
//       members' Patroni configuration bootstraps with `pgbackrest restore`
//       (builders.cc PgBackRestRestoreCommand), the first member recovers
//       (to the target) and is promoted, the others are cloned from it.
//   → Succeeded: a primary serves (its pod Ready).
//   (new trigger) → Failed at once when it cannot succeed (below).
//
// A trigger while restore.enabled is not true is refused at admission (an
// update) or ignored with a Warning event (RestoreNotEnabled). A trigger
// that cannot succeed — a time target in the future, or, as status.backups
// shows, a repository that holds no backup Quorum knows of, or a time target
// before its oldest backup's end — is
// answered Failed at once (event RestoreRefused), before anything stops. A new trigger
// during a restore starts over from Stopping (e.g. after fixing a target the
// first attempt could not reach: the members' logs say why it failed).
// Changing spec.backups.pgbackrest.restore during a restore without a new
// trigger is refused at admission; if the spec stops naming a restore anyway,
// the members stay stopped with a Warning (RestoreBlocked) — never started
// on wiped volumes as a new, empty database.
//
// PlanRestore is pure; the rest acts through the API server and the DCS.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// What a reconcile starts from: the restore status to work with (a new
// trigger makes a new one in Stopping) and what to say about the trigger.
struct RestorePlan {
  std::optional<api::PgBackRestRestoreStatus> status;
  bool started = false;  // a new trigger was accepted
  bool refused = false;  // a new trigger was answered Failed at once (status says why)
  std::string ignored;   // a new trigger was ignored, and why ("" none)
};

// From the trigger annotation, spec.backups.pgbackrest.restore and the stored
// status. Pure.
RestorePlan PlanRestore(const PostgresCluster& cluster, absl::Time now);

// Whether the restore recorded in `cluster`'s status is in `phase`.
bool RestoreIn(const PostgresCluster& cluster, const char* phase);

// Why a restore under way (Stopping or Restoring) cannot go on: the spec no
// longer names an enabled restore with a listed repository (admission
// refuses that change; without the webhook it can happen). The members
// stay stopped meanwhile (builders.h RestoreStopsMembers). "" when it can.
std::string RestoreBlocked(const PostgresCluster& cluster);

// Removes Patroni's state of the cluster from its DCS (etcd: the keys under
// /<namespace>/<scope>/; kubernetes: the leader, config, failover and sync
// Endpoints). Only with every member stopped: a running Patroni writes its
// keys back.
absl::Status ClearPatroniState(const Phase& p, const DcsResolution& dcs);

// Stopping, once no member pod exists: removes Patroni's state from the DCS
// and deletes the members' data volumes. Returns whether none is left (the
// caller then moves to Restoring); false while deletions are under way.
absl::StatusOr<bool> WipeMembers(const Phase& p, const DcsResolution& dcs);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_H_
