// ScheduleBackups (backup_schedule.h): the scheduled-backups phase of a
// PostgresCluster reconcile.
#include "absl/strings/str_cat.h"
#include "src/controllers/postgrescluster/backup_schedule.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/reconciler.h"

namespace quorum::postgrescluster {

absl::StatusOr<std::optional<absl::Duration>> ScheduleBackups(const Phase& p, absl::Time now) {
  if (!p.cluster.spec.backups.pgbackrest.has_value()) return std::nullopt;
  absl::Time created = absl::InfinitePast();
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, Str(At(p.stored, {"metadata", "creationTimestamp"})),
                       &created, &err)) {
    created = now;
  }
  std::vector<ScheduledBackup> owned;
  for (const runtime::ObjectPtr& o : p.cache.List(kPostgresBackups, p.n.ns)) {
    const Json& meta = At(*o, {"metadata"});
    if (Str(At(meta, {"labels", kBackupClusterLabel})) != p.n.cluster) continue;
    const std::string schedule = Str(At(meta, {"labels", kBackupScheduleLabel}));
    if (schedule.empty()) continue;
    bool ours = false;
    for (const Json& ref :
         At(meta, {"ownerReferences"}).is_array() ? At(meta, {"ownerReferences"}) : Json::array()) {
      ours = ours || ref.value("uid", "") == p.cluster.metadata.uid;
    }
    if (!ours) continue;
    ScheduledBackup b{.name = Str(At(meta, {"name"})),
                      .schedule = schedule,
                      .phase = Str(At(*o, {"status", "phase"}))};
    if (!absl::ParseTime(absl::RFC3339_full, Str(At(meta, {"annotations", kScheduledAtAnnotation})),
                         &b.scheduled_at, &err)) {
      b.scheduled_at = absl::InfinitePast();
    }
    owned.push_back(std::move(b));
  }
  const BackupSchedulePlan plan = PlanScheduledBackups(p.cluster, created, owned, now);
  if (plan.create.has_value()) {
    const Json backup = BuildScheduledBackup(p.cluster, *plan.create);
    absl::StatusOr<Json> made =
        p.client.Create(kPostgresBackups, p.n.ns, backup, {.field_manager = kFieldManager});
    if (!made.ok() && !absl::IsAlreadyExists(made.status())) return made.status();
    if (made.ok()) {
      p.recorder.Normal(p.stored, "BackupScheduled",
                        absl::StrCat("created PostgresBackup ", Str(backup["metadata"]["name"]),
                                     " (", plan.create->type, " into ", plan.create->repo, ")"));
    }
  }
  for (const std::string& name : plan.remove) {
    absl::Status s = p.client.Delete(kPostgresBackups, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    if (s.ok()) {
      p.recorder.Normal(p.stored, "BackupDeleted",
                        "deleted PostgresBackup " + name +
                            " (history kept per schedule; the backup stays in the repository)");
    }
  }
  if (plan.next == absl::InfiniteFuture()) return std::nullopt;
  return std::max(plan.next - now, absl::Seconds(1));
}

std::vector<FinishedBackup> FinishedBackupsOf(const Phase& p) {
  std::vector<FinishedBackup> out;
  for (const runtime::ObjectPtr& o : p.cache.List(kPostgresBackups, p.n.ns)) {
    if (Str(At(*o, {"spec", "clusterRef", "name"})) != p.n.cluster) continue;
    if (Str(At(*o, {"status", "phase"})) != "Complete") continue;
    const Json& b = At(*o, {"status", "backup"});
    out.push_back({.name = Str(At(*o, {"metadata", "name"})),
                   .repo = Str(At(*o, {"spec", "repoName"})),
                   .type = Str(At(b, {"type"})),
                   .label = Str(At(b, {"label"})),
                   .stop_time = Str(At(b, {"stopTime"})),
                   .repo_wal_max = Str(At(b, {"repository", "walMax"})),
                   .repo_oldest_stop_time = Str(At(b, {"repository", "oldestStopTime"}))});
  }
  return out;
}

}  // namespace quorum::postgrescluster
