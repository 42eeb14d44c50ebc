// What the backup metrics (issue 38, docs/metrics.md) say about one object:
// quorum_backup_last_success_timestamp_seconds and
// quorum_backup_schedule_interval_seconds of an EtcdBackupSchedule, and of a
// PostgresCluster with scheduled pgBackRest backups. The alert
// QuorumBackupOverdue compares the age of the last success with the interval,
// so the interval is the schedule's period at the last success (see
// SchedulePeriod). Pure functions of the objects and the time they are
// judged at.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_METRICS_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_METRICS_H_

#include <optional>

#include "absl/time/time.h"
#include "api/cron.h"
#include "api/etcdbackupschedule_types.h"
#include "api/postgrescluster_types.h"

namespace quorum::controllers {

struct BackupState {
  std::optional<absl::Time> last_success;  // none succeeded yet (or unreadable)
  std::optional<absl::Duration> interval;  // nothing scheduled
  bool operator==(const BackupState&) const = default;
};

// The length of the schedule's period that holds `last_success`: from the
// firing at or before it to the next firing. For a regular schedule that is
// simply its period; for an irregular one it is the period the backup is
// measured against (after Friday's run of "0 3 * * 1-5", three days, so the
// weekend raises no alert; the next two firings from Saturday would say one
// day). Without a success, or one before the schedule's first firing, the
// period that holds `now` (or, before any firing, the first one after it).
// nullopt when the schedule stops firing (CronSchedule's search window).
std::optional<absl::Duration> SchedulePeriod(const api::CronSchedule& schedule,
                                             std::optional<absl::Time> last_success,
                                             absl::Time now);

// status.lastSuccessfulBackupTime, and the period of spec.schedule. An
// EtcdBackupSchedule has no suspend: it always has an interval (unless its
// cron line does not parse, which admission refuses).
BackupState EtcdBackupScheduleBackupState(const api::EtcdBackupSchedule& schedule, absl::Time now);

// The newest stopTime over status.backups.pgbackrest.repos[].{full,
// differential, incremental}, and the shortest period over every schedule of
// every repository. nullopt when spec.backups.pgbackrest schedules nothing
// (manual backups only: nothing is overdue).
std::optional<BackupState> PostgresClusterBackupState(const api::PostgresCluster& cluster,
                                                      absl::Time now);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_METRICS_H_
