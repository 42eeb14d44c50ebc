// The EtcdBackup a schedule creates for one cron time (pure). Its name is a
// function of the schedule and that time, "<schedule>-<minutes since the
// epoch>" as CronJob names its Jobs, so a reconcile repeated after a crash
// creates the same object (the API server answers AlreadyExists) and never
// a second backup for one time.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_BACKUP_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_BACKUP_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/time/time.h"
#include "api/etcdbackupschedule_types.h"

namespace quorum::etcdbackupschedule {

// The label every scheduled EtcdBackup carries: the schedule's name (first 63 chars).
inline constexpr char kScheduleLabel[] = "etcd.aenix.io/backup-schedule";

// At most 63 characters (the schedule's name is shortened to fit), so the
// backup's name also fits label values.
std::string ScheduledBackupName(const std::string& schedule, absl::Time scheduled_at);

// The destination of that backup: the schedule's, with an S3 key prefix
// turned into "<prefix>/<backup>.db" (no prefix: EtcdBackup's default key).
api::BackupDestination ScheduledDestination(const api::BackupDestination& destination,
                                            const std::string& backup);

// The EtcdBackup object, owned by the schedule (controller reference), with
// the scheduled-at annotation and the schedule label.
nlohmann::json BuildScheduledBackup(const api::EtcdBackupSchedule& schedule,
                                    absl::Time scheduled_at);

}  // namespace quorum::etcdbackupschedule

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_BACKUP_H_
