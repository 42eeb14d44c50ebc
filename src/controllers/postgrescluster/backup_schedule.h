// Scheduled backups of a PostgresCluster (spec.backups.pgbackrest.repos[].
// schedules), pure: from the cluster, the PostgresBackup objects it owns and
// the time, to what to do:
//   create  at most one PostgresBackup, for the latest cron time at or before
//           now of a schedule (repo, type) that is later than the last one it
//           created (its scheduled-at annotation) and not before the
//           cluster's creation. Times missed while the operator was down give
//           one catch-up backup, never one per missed time. While one of the
//           cluster's scheduled backups is still Pending or Started, none is
//           created (pgBackRest runs one backup of a stanza at a time); when
//           it finishes, the latest time passed is caught up. When several
//           schedules are due, full goes first, then differential, then
//           incremental.
//   delete  finished backups past the history kept per schedule: the newest
//           kKeepComplete Complete and kKeepFailed Failed objects stay. The
//           backups in the repository are pgBackRest's (its retention
//           options); deleting an object never deletes one.
//   next    the earliest next cron time: the reconcile wakes then.
// The objects are named <cluster>-<repo>-<type>-<minutes since the epoch of
// the cron time>, so a repeated reconcile asks for the same name and gets
// AlreadyExists: one cron time never gives two backups.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BACKUP_SCHEDULE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BACKUP_SCHEDULE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

inline constexpr int kKeepComplete = 3;
inline constexpr int kKeepFailed = 1;
// On scheduled PostgresBackups: the cluster, the schedule ("<repo>-<type>")
// and the cron time (RFC 3339).
inline constexpr char kBackupClusterLabel[] = "postgres.quorum.dev/cluster";
inline constexpr char kBackupScheduleLabel[] = "postgres.quorum.dev/schedule";
inline constexpr char kScheduledAtAnnotation[] = "postgres.quorum.dev/scheduled-at";

// A PostgresBackup the cluster's schedules created.
struct ScheduledBackup {
  std::string name;
  std::string schedule;  // "<repo>-<type>"
  absl::Time scheduled_at = absl::InfinitePast();
  std::string phase;  // "" until its controller writes one
};

struct BackupToCreate {
  std::string repo;  // repo1..repo4
  std::string type;  // full | diff | incr
  absl::Time at;
};

struct BackupSchedulePlan {
  std::optional<BackupToCreate> create;
  std::vector<std::string> remove;
  absl::Time next = absl::InfiniteFuture();
};

BackupSchedulePlan PlanScheduledBackups(const PostgresCluster& cluster, absl::Time created,
                                        const std::vector<ScheduledBackup>& backups,
                                        absl::Time now);

// A finished PostgresBackup of the cluster (scheduled or not), as the
// summary reads it.
struct FinishedBackup {
  std::string name;
  std::string repo;  // spec.repoName
  std::string type;  // status.backup.type: what pgBackRest took (full | diff | incr)
  std::string label;
  std::string stop_time;  // RFC 3339
  // status.backup.repository: the repository as the backup left it.
  std::string repo_wal_max;
  std::string repo_oldest_stop_time;  // RFC 3339
};

// status.backups.pgbackrest.repos: per repository of the spec, in its order,
// the newest (by stop time) Complete backup of each type; from the newest of
// any type, the WAL archived up to and the recoverable window (from the
// repository's oldest backup's end to the newest backup's).
std::vector<api::PgBackRestRepoStatus> SummarizeBackups(const PostgresCluster& cluster,
                                                        const std::vector<FinishedBackup>& done);

// Whether any repository has a schedule.
bool HasBackupSchedules(const PostgresCluster& cluster);

// The PostgresBackup for `c`, owned by the cluster.
Json BuildScheduledBackup(const PostgresCluster& cluster, const BackupToCreate& c);

struct Phase;
// The act (schedule_backups.cc): reads the cluster's scheduled PostgresBackups
// from the cache, creates and deletes what the plan says (events
// BackupScheduled, BackupDeleted), and returns how long until the next cron
// time (nullopt: no schedule).
absl::StatusOr<std::optional<absl::Duration>> ScheduleBackups(const Phase& p, absl::Time now);
// The cluster's Complete PostgresBackups (spec.clusterRef), from the cache.
std::vector<FinishedBackup> FinishedBackupsOf(const Phase& p);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BACKUP_SCHEDULE_H_
