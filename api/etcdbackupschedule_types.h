// EtcdBackupSchedule (etcd.aenix.io/v1alpha1, field names as aenix's
// etcd-operator v0.4.3): an EtcdBackup created on a cron schedule, with
// CronJob-like history limits on the EtcdBackup objects and Quorum's
// retention of the stored snapshots (keepLast, keepWithin), which aenix lacks.
// docs/backup.md is the user-facing contract.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_ETCDBACKUPSCHEDULE_TYPES_H_
#define QUORUM_API_ETCDBACKUPSCHEDULE_TYPES_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/backup_destination.h"
#include "api/etcdbackupschedule.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"

namespace quorum::api {

// On each EtcdBackup a schedule creates: the cron time it stands for (RFC 3339).
inline constexpr std::string_view kScheduledAtAnnotation = "etcd.aenix.io/scheduled-at";

struct EtcdBackupScheduleSpec {
  std::string cluster_ref;  // clusterRef.name
  std::string schedule;     // five-field cron, UTC (cron.h)
  // Where each snapshot goes. s3.key is a prefix here: the object is
  // "<key>/<backup>.db" ("" gives EtcdBackup's default key).
  BackupDestination destination;
  int32_t successful_jobs_history_limit = 3;  // EtcdBackup objects kept (CronJob's default)
  int32_t failed_jobs_history_limit = 1;
  int32_t keep_last = 0;                              // (Quorum) snapshots kept; 0: no count limit
  absl::Duration keep_within = absl::ZeroDuration();  // (Quorum) 0: no age limit
  std::string keep_within_text;                       // as written, e.g. "168h"
  // Accepted for aenix compatibility (its CronJob's settings); no effect here.
  int64_t active_backup_job_deadline = 900;
  int32_t finished_backup_jobs_ttl = 600;
};

// One snapshot the schedule keeps track of (status.snapshots[]).
struct ScheduledSnapshot {
  std::string backup;  // the EtcdBackup that took it
  std::string uri;     // s3://bucket/key or pvc://claim/path
  std::string taken_at;
  int64_t size = 0;
  int64_t revision = 0;
  bool operator==(const ScheduledSnapshot&) const = default;
};

struct EtcdBackupScheduleStatus {
  int64_t observed_generation = 0;
  std::vector<Condition> conditions;  // Ready, Failed (aenix's types)
  std::string last_schedule_time;     // RFC 3339
  std::string last_successful_backup_time;
  std::string next_schedule_time;            // (Quorum)
  std::vector<ScheduledSnapshot> snapshots;  // (Quorum) newest first
  bool operator==(const EtcdBackupScheduleStatus&) const = default;
};

struct EtcdBackupSchedule {
  ObjectMeta metadata;
  std::string creation_timestamp;  // RFC 3339
  EtcdBackupScheduleSpec spec;
  EtcdBackupScheduleStatus status;
};

// Validates and decodes. InvalidArgument naming every bad field.
absl::StatusOr<EtcdBackupSchedule> ParseEtcdBackupSchedule(const nlohmann::json& obj);

// The admission rules (also run by ParseEtcdBackupSchedule): clusterRef.name,
// a cron schedule that fires, a valid destination (as EtcdBackup's), history
// limits >= 0, keepLast >= 1 when set, keepWithin a positive duration
// ("90m", "168h"). The spec may change (unlike EtcdBackup's).
std::vector<FieldError> ValidateEtcdBackupSchedule(const nlohmann::json& obj);

nlohmann::json ToJson(const EtcdBackupScheduleStatus& status);

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUPSCHEDULE_TYPES_H_
