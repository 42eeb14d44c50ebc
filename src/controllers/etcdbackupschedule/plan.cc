#include "src/controllers/etcdbackupschedule/plan.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "src/controllers/etcdbackupschedule/retention.h"

namespace quorum::etcdbackupschedule {
namespace {

absl::Time ParseOr(const std::string& s, absl::Time fallback) {
  absl::Time t;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, s, &t, &err) ? t : fallback;
}

// The latest cron time a backup was created for (InfinitePast: none yet).
absl::Time LastScheduled(const ScheduleObservation& o) {
  absl::Time last = ParseOr(o.schedule->status.last_schedule_time, absl::InfinitePast());
  for (const OwnedBackup& b : o.backups) last = std::max(last, b.scheduled_at);
  return last;
}

// A backup still Pending or Started holds the next one back (CronJob's
// concurrencyPolicy Forbid): a cluster that is down for a day leaves one
// waiting backup, not 1,440.
bool AnyUnfinished(const std::vector<OwnedBackup>& backups) {
  for (const OwnedBackup& b : backups) {
    if (b.phase != api::kBackupComplete && b.phase != api::kBackupFailed) return true;
  }
  return false;
}

// Every snapshot the schedule knows: status.snapshots plus those of its
// Complete backups (one per backup name).
std::vector<api::ScheduledSnapshot> KnownSnapshots(const ScheduleObservation& o) {
  std::vector<api::ScheduledSnapshot> out = o.schedule->status.snapshots;
  std::set<std::string> names;
  for (const api::ScheduledSnapshot& s : out) names.insert(s.backup);
  for (const OwnedBackup& b : o.backups) {
    if (b.phase != api::kBackupComplete || !b.snapshot || names.contains(b.name)) continue;
    out.push_back({.backup = b.name,
                   .uri = b.snapshot->uri,
                   .taken_at = b.snapshot->taken_at,
                   .size = b.snapshot->size,
                   .revision = b.snapshot->revision});
  }
  return out;
}

// Newest first by cron time, then by name.
std::vector<const OwnedBackup*> ByScheduleDesc(const std::vector<OwnedBackup>& backups) {
  std::vector<const OwnedBackup*> out;
  for (const OwnedBackup& b : backups) out.push_back(&b);
  std::sort(out.begin(), out.end(), [](const OwnedBackup* a, const OwnedBackup* b) {
    return a->scheduled_at != b->scheduled_at ? a->scheduled_at > b->scheduled_at
                                              : a->name > b->name;
  });
  return out;
}

void PlanHistory(const ScheduleObservation& o, const std::set<std::string>& dropped,
                 SchedulePlan& plan) {
  std::set<std::string> recorded;
  for (const api::ScheduledSnapshot& s : o.schedule->status.snapshots) recorded.insert(s.backup);
  const api::EtcdBackupScheduleSpec& spec = o.schedule->spec;
  int complete = 0, failed = 0;
  for (const OwnedBackup* b : ByScheduleDesc(o.backups)) {
    bool remove = dropped.contains(b->name);
    if (b->phase == api::kBackupComplete) {
      const bool tracked = recorded.contains(b->name) || !b->snapshot;
      remove = remove || (++complete > spec.successful_jobs_history_limit && tracked);
    } else if (b->phase == api::kBackupFailed) {
      remove = remove || ++failed > spec.failed_jobs_history_limit;
    }
    if (remove) plan.delete_backups.push_back(b->name);
  }
}

void SetCondition(api::EtcdBackupScheduleStatus& s, const api::EtcdBackupScheduleStatus& old,
                  api::Condition c, const std::string& now) {
  c.last_transition_time = now;
  for (const api::Condition& prev : old.conditions) {
    if (prev.type == c.type && prev.status == c.status) {
      c.last_transition_time = prev.last_transition_time;
    }
  }
  s.conditions.push_back(std::move(c));
}

void PlanConditions(const ScheduleObservation& o, SchedulePlan& plan) {
  const api::EtcdBackupSchedule& s = *o.schedule;
  const int64_t gen = s.metadata.generation;
  const std::string now = Rfc3339(o.now);
  SetCondition(plan.status, s.status,
               {.type = "Ready",
                .status = "True",
                .reason = "Scheduled",
                .message = absl::StrCat("backups at \"", s.spec.schedule, "\" (UTC)"),
                .observed_generation = gen},
               now);
  api::Condition failed{
      .type = "Failed", .status = "False", .reason = "NoFailure", .observed_generation = gen};
  for (const OwnedBackup* b : ByScheduleDesc(o.backups)) {
    if (b->phase == api::kBackupComplete) break;
    if (b->phase != api::kBackupFailed) continue;
    failed.status = "True";
    failed.reason = "BackupFailed";
    failed.message = absl::StrCat("EtcdBackup ", b->name, " failed: ", b->failure);
    break;
  }
  SetCondition(plan.status, s.status, std::move(failed), now);
}

}  // namespace

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

SchedulePlan PlanSchedule(const ScheduleObservation& o) {
  const api::EtcdBackupSchedule& s = *o.schedule;
  SchedulePlan plan;
  plan.status.observed_generation = s.metadata.generation;
  // Create: the latest due cron time not yet scheduled, after the schedule's creation.
  absl::Time last = LastScheduled(o);
  const absl::Time floor = std::max(last, ParseOr(s.creation_timestamp, absl::InfinitePast()));
  const absl::Time due = o.cron->Prev(o.now);
  if (due != absl::InfinitePast() && due > floor && !AnyUnfinished(o.backups)) {
    plan.create = due;
    last = due;
  }
  if (last != absl::InfinitePast()) plan.status.last_schedule_time = Rfc3339(last);
  plan.next = o.cron->Next(o.now);
  if (plan.next != absl::InfiniteFuture()) plan.status.next_schedule_time = Rfc3339(plan.next);
  // Retention, then history.
  RetentionDecision kept = ApplyRetention(
      KnownSnapshots(o), {.keep_last = s.spec.keep_last, .keep_within = s.spec.keep_within}, o.now);
  std::set<std::string> dropped;
  for (const api::ScheduledSnapshot& d : kept.drop) dropped.insert(d.backup);
  plan.prune = std::move(kept.drop);
  plan.status.snapshots = std::move(kept.keep);
  PlanHistory(o, dropped, plan);
  absl::Time success = ParseOr(s.status.last_successful_backup_time, absl::InfinitePast());
  if (!plan.status.snapshots.empty()) {
    success = std::max(success, TakenAt(plan.status.snapshots.front()));
  }
  if (success != absl::InfinitePast()) plan.status.last_successful_backup_time = Rfc3339(success);
  PlanConditions(o, plan);
  return plan;
}

}  // namespace quorum::etcdbackupschedule
