#include "src/controllers/etcdbackupschedule/reconciler.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "api/cron.h"
#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule.h"
#include "api/etcdcluster.h"
#include "src/base/json_access.h"
#include "src/controllers/etcdbackup/reconciler.h"
#include "src/controllers/etcdbackupschedule/backup.h"
#include "src/controllers/etcdbackupschedule/plan.h"
#include "src/controllers/etcdbackupschedule/retention.h"
#include "src/runtime/handler.h"

namespace quorum::etcdbackupschedule {
namespace {

using Json = nlohmann::json;
constexpr char kFieldManager[] = "quorum-operator";

absl::Status WriteStatus(kube::Client& client, const std::string& ns, const std::string& name,
                         const api::EtcdBackupScheduleStatus& status) {
  const Json patch = {{"apiVersion", std::string(api::kEtcdApiVersion)},
                      {"kind", std::string(api::kEtcdBackupScheduleKind)},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote = client.ApplyStatus(kEtcdBackupSchedules, ns, patch,
                                                  {.field_manager = kFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

bool ControlledBy(const Json& obj, const std::string& uid) {
  const Json refs = obj["metadata"].value("ownerReferences", Json::array());
  for (const Json& r : refs) {
    if (r.value("uid", "") == uid && r.value("controller", false)) return true;
  }
  return false;
}

OwnedBackup ToOwned(const Json& obj) {
  OwnedBackup b{.name = json_access::Str(json_access::At(obj, {"metadata", "name"}))};
  const Json annotations = obj["metadata"].value("annotations", Json::object());
  const std::string at = annotations.value(std::string(api::kScheduledAtAnnotation), "");
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, at, &b.scheduled_at, &err)) {
    b.scheduled_at = absl::InfinitePast();
  }
  absl::StatusOr<api::EtcdBackup> parsed = api::ParseEtcdBackup(obj);
  if (!parsed.ok()) {
    b.phase = obj.value("status", Json::object()).value("phase", "");
    return b;
  }
  b.phase = parsed->status.phase;
  b.snapshot = parsed->status.snapshot;
  for (const api::Condition& c : parsed->status.conditions) {
    if (c.type == "Failed" && c.status == "True") b.failure = c.message;
  }
  return b;
}

std::vector<OwnedBackup> ObserveOwned(const runtime::Cache& cache, const std::string& ns,
                                      const std::string& uid) {
  std::vector<OwnedBackup> out;
  for (const runtime::ObjectPtr& obj : cache.List(etcdbackup::kEtcdBackups, ns)) {
    if (ControlledBy(*obj, uid)) out.push_back(ToOwned(*obj));
  }
  return out;
}

}  // namespace

EtcdBackupScheduleReconciler::EtcdBackupScheduleReconciler(kube::Client& client,
                                                           runtime::Cache& cache,
                                                           runtime::EventRecorder& recorder,
                                                           std::string image,
                                                           std::string s3_ca_file, Clock& clock)
    : client_(client),
      cache_(cache),
      recorder_(recorder),
      image_(std::move(image)),
      s3_ca_file_(std::move(s3_ca_file)),
      clock_(clock) {}

absl::Status EtcdBackupScheduleReconciler::RefuseInvalid(const Json& stored,
                                                         const absl::Status& why) {
  const Json status = stored.value("status", Json::object());
  for (const Json& c : status.value("conditions", Json::array())) {
    if (c.value("type", "") == "Ready" && c.value("reason", "") == "InvalidSpec") {
      return absl::OkStatus();  // said once
    }
  }
  api::EtcdBackupScheduleStatus s;
  s.conditions.push_back({.type = "Ready",
                          .status = "False",
                          .reason = "InvalidSpec",
                          .message = std::string(why.message()),
                          .last_transition_time = Rfc3339(clock_.Now())});
  recorder_.Warning(stored, "InvalidSpec", std::string(why.message()));
  return WriteStatus(client_, json_access::Str(json_access::At(stored, {"metadata", "namespace"})),
                     json_access::Str(json_access::At(stored, {"metadata", "name"})), s);
}

absl::StatusOr<runtime::Result> EtcdBackupScheduleReconciler::Reconcile(
    const runtime::Request& req) {
  const runtime::ObjectPtr stored = cache_.Get(kEtcdBackupSchedules, req.ns, req.name);
  if (stored == nullptr) return runtime::Result{};
  absl::StatusOr<api::EtcdBackupSchedule> parsed = api::ParseEtcdBackupSchedule(*stored);
  if (!parsed.ok()) {
    if (absl::Status s = RefuseInvalid(*stored, parsed.status()); !s.ok()) return s;
    return runtime::Result{};
  }
  const api::EtcdBackupSchedule& schedule = *parsed;
  absl::StatusOr<api::CronSchedule> cron = api::CronSchedule::Parse(schedule.spec.schedule);
  if (schedule.metadata.deleting || !cron.ok()) return runtime::Result{};
  // Observe, plan.
  const absl::Time now = clock_.Now();
  SchedulePlan plan = PlanSchedule({.schedule = &schedule,
                                    .cron = &*cron,
                                    .backups = ObserveOwned(cache_, req.ns, schedule.metadata.uid),
                                    .now = now});
  // Act: the backup due, then pruning, then the objects past their limits.
  if (plan.create) {
    const Json backup = BuildScheduledBackup(schedule, *plan.create);
    absl::StatusOr<Json> created =
        client_.Create(etcdbackup::kEtcdBackups, req.ns, backup, {.field_manager = kFieldManager});
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
    if (created.ok()) {
      recorder_.Normal(*stored, "BackupCreated",
                       absl::StrCat("EtcdBackup ", backup["metadata"]["name"].get<std::string>(),
                                    " for ", Rfc3339(*plan.create)));
    }
  }
  absl::Status prune_error;
  const std::vector<api::ScheduledSnapshot> pending =
      Prune(*stored, schedule, plan.prune, prune_error);
  std::set<std::string> keep_objects;
  for (const api::ScheduledSnapshot& p : pending) {
    keep_objects.insert(p.backup);
    plan.status.snapshots.push_back(p);
  }
  plan.status.snapshots = ApplyRetention(std::move(plan.status.snapshots), {}, now).keep;
  for (const std::string& name : plan.delete_backups) {
    if (keep_objects.contains(name)) continue;
    absl::Status s = client_.Delete(etcdbackup::kEtcdBackups, req.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    if (s.ok()) recorder_.Normal(*stored, "BackupDeleted", "EtcdBackup " + name + " deleted");
  }
  // Status, last.
  if (plan.status != schedule.status) {
    if (absl::Status s = WriteStatus(client_, req.ns, req.name, plan.status); !s.ok()) return s;
  }
  if (!prune_error.ok()) return prune_error;  // retried with backoff
  if (plan.next == absl::InfiniteFuture()) return runtime::Result{};
  return runtime::Result{.requeue_after = std::max(plan.next - now, absl::Seconds(1))};
}

runtime::Controller& SetupEtcdBackupScheduleController(runtime::Manager& manager,
                                                       EtcdBackupScheduleReconciler& reconciler,
                                                       int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::Controller& c =
      manager.AddController("etcdbackupschedule", reconciler, {.workers = workers});
  c.Watch(cache.Informer(kEtcdBackupSchedules), runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  // A backup that finishes (or is deleted) and a prune Job that ends wake their schedule.
  c.Watch(cache.Informer(etcdbackup::kEtcdBackups),
          runtime::EnqueueRequestForOwner(std::string(api::kEtcdGroup),
                                          std::string(api::kEtcdBackupScheduleKind)),
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(etcdbackup::kJobs),
          runtime::EnqueueRequestForOwner(std::string(api::kEtcdGroup),
                                          std::string(api::kEtcdBackupScheduleKind)),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::etcdbackupschedule
