#include "src/controllers/common/backup_metrics.h"

#include <string>

namespace quorum::controllers {
namespace {

std::optional<absl::Time> ParseRfc3339(const std::string& text) {
  absl::Time t;
  std::string err;
  if (text.empty() || !absl::ParseTime(absl::RFC3339_full, text, &t, &err)) return std::nullopt;
  return t;
}

std::optional<absl::Time> Newer(std::optional<absl::Time> a, std::optional<absl::Time> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::optional<absl::Duration> Shorter(std::optional<absl::Duration> a,
                                      std::optional<absl::Duration> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The period of one cron line; nullopt when it is empty or does not parse.
std::optional<absl::Duration> LinePeriod(const std::string& line,
                                         std::optional<absl::Time> last_success, absl::Time now) {
  if (line.empty()) return std::nullopt;
  absl::StatusOr<api::CronSchedule> schedule = api::CronSchedule::Parse(line);
  if (!schedule.ok()) return std::nullopt;
  return SchedulePeriod(*schedule, last_success, now);
}

}  // namespace

std::optional<absl::Duration> SchedulePeriod(const api::CronSchedule& schedule,
                                             std::optional<absl::Time> last_success,
                                             absl::Time now) {
  absl::Time from = absl::InfinitePast();
  if (last_success) from = schedule.Prev(*last_success);
  if (from == absl::InfinitePast()) from = schedule.Prev(now);
  if (from == absl::InfinitePast()) from = schedule.Next(now);
  if (from == absl::InfiniteFuture()) return std::nullopt;
  const absl::Time to = schedule.Next(from);
  if (to == absl::InfiniteFuture()) return std::nullopt;
  return to - from;
}

BackupState EtcdBackupScheduleBackupState(const api::EtcdBackupSchedule& schedule, absl::Time now) {
  BackupState state;
  state.last_success = ParseRfc3339(schedule.status.last_successful_backup_time);
  state.interval = LinePeriod(schedule.spec.schedule, state.last_success, now);
  return state;
}

std::optional<BackupState> PostgresClusterBackupState(const api::PostgresCluster& cluster,
                                                      absl::Time now) {
  const std::optional<api::PgBackRestSpec>& spec = cluster.spec.backups.pgbackrest;
  if (!spec) return std::nullopt;
  BackupState state;
  for (const api::PgBackRestRepoStatus& repo : cluster.status.backup_repos) {
    for (const auto* ref : {&repo.full, &repo.differential, &repo.incremental}) {
      if (*ref) state.last_success = Newer(state.last_success, ParseRfc3339((*ref)->stop_time));
    }
  }
  bool scheduled = false;
  for (const api::PgBackRestRepo& repo : spec->repos) {
    for (const std::string* line :
         {&repo.schedules.full, &repo.schedules.differential, &repo.schedules.incremental}) {
      scheduled = scheduled || !line->empty();
      state.interval = Shorter(state.interval, LinePeriod(*line, state.last_success, now));
    }
  }
  if (!scheduled) return std::nullopt;
  return state;
}

}  // namespace quorum::controllers
