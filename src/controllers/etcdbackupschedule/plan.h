// The EtcdBackupSchedule planner (pure): from the schedule, its cron, the
// EtcdBackups it owns (as the cache shows them) and the time, to what to do:
//   create   at most one EtcdBackup, for the latest cron time at or before
//            now that is later than the last one scheduled (status, the
//            owned backups' scheduled-at, or the schedule's creation). Ticks
//            missed while the operator was down give one catch-up backup, for
//            the latest of them, never one per missed tick. While a backup
//            is still Pending or Started, none is created (CronJob's Forbid);
//            when it finishes, the latest cron time passed is caught up.
//   delete   EtcdBackup objects past successful/failedJobsHistoryLimit
//            (a Complete one only once status.snapshots records its snapshot,
//            so deleting the object never loses track of the file), and the
//            objects whose snapshot retention drops
//   prune    snapshots retention (retention.h) drops
//   status   lastScheduleTime, lastSuccessfulBackupTime, nextScheduleTime,
//            the kept snapshots, Ready and Failed conditions
//   next     the next cron time: the reconciler requeues exactly then.
// Pending and Started backups are never deleted.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "api/cron.h"
#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule_types.h"

namespace quorum::etcdbackupschedule {

// An EtcdBackup whose controller reference is the schedule.
struct OwnedBackup {
  std::string name;
  absl::Time scheduled_at = absl::InfinitePast();  // the annotation; InfinitePast if absent
  std::string phase;                               // "" until its controller writes one
  std::string failure;                             // the Failed condition's message
  std::optional<api::BackupSnapshotStatus> snapshot;
};

struct ScheduleObservation {
  const api::EtcdBackupSchedule* schedule = nullptr;
  const api::CronSchedule* cron = nullptr;
  std::vector<OwnedBackup> backups;
  absl::Time now;
};

struct SchedulePlan {
  std::optional<absl::Time> create;  // the cron time to create a backup for
  std::vector<std::string> delete_backups;
  std::vector<api::ScheduledSnapshot> prune;  // snapshots to delete from the store
  // status.snapshots holds the kept ones; the reconciler adds back any prune
  // it could not carry out.
  api::EtcdBackupScheduleStatus status;
  absl::Time next;  // InfiniteFuture: never again
};

SchedulePlan PlanSchedule(const ScheduleObservation& o);

std::string Rfc3339(absl::Time t);

}  // namespace quorum::etcdbackupschedule

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PLAN_H_
