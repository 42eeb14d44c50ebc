#include "src/controllers/postgrescluster/backup_schedule.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "api/cron.h"
#include "api/postgresbackup.h"
#include "api/postgrescluster.h"

namespace quorum::postgrescluster {
namespace {

struct Schedule {
  std::string repo, type, cron;
};

// In the order they go first when due together.
std::vector<Schedule> SchedulesOf(const PostgresCluster& cluster) {
  std::vector<Schedule> out;
  if (!cluster.spec.backups.pgbackrest.has_value()) return out;
  for (const char* type : {"full", "diff", "incr"}) {
    for (const api::PgBackRestRepo& r : cluster.spec.backups.pgbackrest->repos) {
      const std::string& cron = std::string(type) == "full"   ? r.schedules.full
                                : std::string(type) == "diff" ? r.schedules.differential
                                                              : r.schedules.incremental;
      if (!cron.empty()) out.push_back({r.name, type, cron});
    }
  }
  return out;
}

bool Active(const std::string& phase) { return phase != "Complete" && phase != "Failed"; }

// Whether the backup (stop time, name) ends after the other: RFC 3339 in
// UTC ("Z") compares as text; the name breaks a tie.
bool Newer(const std::string& stop, const std::string& name, const std::string& other_stop,
           const std::string& other_name) {
  return other_stop < stop || (other_stop == stop && other_name < name);
}

}  // namespace

std::vector<api::PgBackRestRepoStatus> SummarizeBackups(const PostgresCluster& cluster,
                                                        const std::vector<FinishedBackup>& done) {
  std::vector<api::PgBackRestRepoStatus> out;
  if (!cluster.spec.backups.pgbackrest.has_value()) return out;
  for (const api::PgBackRestRepo& r : cluster.spec.backups.pgbackrest->repos) {
    api::PgBackRestRepoStatus& rs = out.emplace_back();
    rs.name = r.name;
    const FinishedBackup* newest = nullptr;
    for (const FinishedBackup& b : done) {
      if (b.repo != r.name) continue;
      if (newest == nullptr || Newer(b.stop_time, b.name, newest->stop_time, newest->name)) {
        newest = &b;
      }
      std::optional<api::PgBackRestBackupRef>* slot = b.type == "full"   ? &rs.full
                                                      : b.type == "diff" ? &rs.differential
                                                      : b.type == "incr" ? &rs.incremental
                                                                         : nullptr;
      if (slot == nullptr) continue;
      if (!slot->has_value() || Newer(b.stop_time, b.name, (*slot)->stop_time, (*slot)->backup)) {
        *slot =
            api::PgBackRestBackupRef{.backup = b.name, .label = b.label, .stop_time = b.stop_time};
      }
    }
    // Reported by backups since the field exists: older ones leave it out.
    if (newest != nullptr && !newest->repo_wal_max.empty()) {
      rs.wal_archived_up_to = newest->repo_wal_max;
      rs.recoverable_from = newest->repo_oldest_stop_time;
      rs.recoverable_to = newest->stop_time;
    }
  }
  return out;
}

bool HasBackupSchedules(const PostgresCluster& cluster) { return !SchedulesOf(cluster).empty(); }

BackupSchedulePlan PlanScheduledBackups(const PostgresCluster& cluster, absl::Time created,
                                        const std::vector<ScheduledBackup>& backups,
                                        absl::Time now) {
  BackupSchedulePlan plan;
  const bool busy = std::any_of(backups.begin(), backups.end(),
                                [](const ScheduledBackup& b) { return Active(b.phase); });
  for (const Schedule& s : SchedulesOf(cluster)) {
    absl::StatusOr<api::CronSchedule> cron = api::CronSchedule::Parse(s.cron);
    if (!cron.ok()) continue;  // refused at admission
    plan.next = std::min(plan.next, cron->Next(now));
    const std::string key = s.repo + "-" + s.type;
    absl::Time last = created;
    for (const ScheduledBackup& b : backups) {
      if (b.schedule == key) last = std::max(last, b.scheduled_at);
    }
    const absl::Time due = cron->Prev(now);
    if (!busy && !plan.create.has_value() && due > last && due >= created) {
      plan.create = BackupToCreate{.repo = s.repo, .type = s.type, .at = due};
    }
  }
  // History, per schedule: the newest finished objects stay.
  std::map<std::string, std::vector<const ScheduledBackup*>> by_schedule;
  for (const ScheduledBackup& b : backups) by_schedule[b.schedule].push_back(&b);
  for (auto& [key, list] : by_schedule) {
    std::sort(list.begin(), list.end(), [](const ScheduledBackup* a, const ScheduledBackup* b) {
      return a->scheduled_at > b->scheduled_at;
    });
    int complete = 0, failed = 0;
    for (const ScheduledBackup* b : list) {
      if (b->phase == "Complete" && ++complete > kKeepComplete) plan.remove.push_back(b->name);
      if (b->phase == "Failed" && ++failed > kKeepFailed) plan.remove.push_back(b->name);
    }
  }
  return plan;
}

Json BuildScheduledBackup(const PostgresCluster& cluster, const BackupToCreate& c) {
  const Names n = NamesOf(cluster);
  const std::string name =
      absl::StrCat(n.cluster, "-", c.repo, "-", c.type, "-", absl::ToUnixSeconds(c.at) / 60);
  Json labels = {{"app.kubernetes.io/managed-by", "quorum-operator"},
                 {kBackupClusterLabel, n.cluster},
                 {kBackupScheduleLabel, c.repo + "-" + c.type}};
  return {
      {"apiVersion", std::string(api::kPostgresApiVersion)},
      {"kind", std::string(api::kPostgresBackupKind)},
      {"metadata",
       {{"name", name},
        {"namespace", n.ns},
        {"labels", labels},
        {"annotations",
         {{kScheduledAtAnnotation,
           absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", c.at, absl::UTCTimeZone())}}},
        {"ownerReferences", Json::array({OwnerReference(cluster)})}}},
      {"spec", {{"clusterRef", {{"name", n.cluster}}}, {"repoName", c.repo}, {"type", c.type}}}};
}

}  // namespace quorum::postgrescluster
