// The definitions of BackupReconciler's template (backup_reconciler.h), for
// the .cc file of each kind, which instantiates it once:
//   template class controllers::BackupReconciler<api::EtcdBackup>;
// Included nowhere else, so the reconcile's body stays out of other headers.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_IMPL_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_IMPL_H_

#include <nlohmann/json.hpp>
#include <utility>

#include "api/backup_phase.h"
#include "src/controllers/common/backup_reconciler.h"
#include "src/controllers/common/kube_fields.h"
#include "src/kube/resources.h"
#include "src/runtime/conditions.h"

namespace quorum::controllers {

inline constexpr char kBackupFieldManager[] = "quorum-operator";

template <typename Backup>
BackupReconciler<Backup>::BackupReconciler(kube::Client& client, runtime::Cache& cache,
                                           runtime::EventRecorder& recorder, Clock& clock,
                                           BackupKindInfo info)
    : client_(client), cache_(cache), recorder_(recorder), clock_(clock), info_(std::move(info)) {}

template <typename Backup>
absl::StatusOr<runtime::Result> BackupReconciler<Backup>::Reconcile(const runtime::Request& req) {
  const runtime::ObjectPtr stored = cache_.Get(info_.backups, req.ns, req.name);
  if (stored == nullptr) return runtime::Result{};
  const absl::Time now = clock_.Now();
  absl::StatusOr<Backup> parsed = Parse(*stored);
  if (!parsed.ok()) {
    if (absl::Status s = RefuseInvalid(req, *stored, parsed.status(), now); !s.ok()) return s;
    return runtime::Result{};
  }
  const Backup& backup = *parsed;
  if (backup.metadata.deleting) return runtime::Result{};
  absl::StatusOr<std::optional<JobOutcome>> job = ObserveJob(backup);
  if (!job.ok()) return job.status();
  const BackupStep<Status> step =
      Plan(backup, *job, {.now = runtime::Rfc3339(now), .age = Age(*stored, now)});
  if (absl::Status s = Act(*stored, backup, step); !s.ok()) return s;
  // Status, last.
  if (absl::Status s = WriteStatus(backup, step.plan.status); !s.ok()) return s;
  return runtime::Result{.requeue_after = step.plan.recheck_after.value_or(absl::ZeroDuration())};
}

// A backup the webhook should have refused is Failed, once.
template <typename Backup>
absl::Status BackupReconciler<Backup>::RefuseInvalid(const runtime::Request& req,
                                                     const nlohmann::json& stored,
                                                     const absl::Status& why, absl::Time now) {
  const nlohmann::json status = stored.value("status", nlohmann::json::object());
  if (status.value("phase", "") == api::kBackupFailed) return absl::OkStatus();
  Backup b;
  b.metadata.name = req.name;
  b.metadata.ns = req.ns;
  Status failed{.phase = std::string(api::kBackupFailed)};
  failed.conditions.push_back({.type = "Failed",
                               .status = "True",
                               .reason = "InvalidSpec",
                               .message = std::string(why.message()),
                               .last_transition_time = runtime::Rfc3339(now)});
  recorder_.Warning(stored, "InvalidSpec", std::string(why.message()));
  return WriteStatus(b, failed);
}

template <typename Backup>
absl::StatusOr<std::optional<JobOutcome>> BackupReconciler<Backup>::ObserveJob(
    const Backup& backup) {
  const std::string name = JobName(backup);
  runtime::ObjectPtr job = cache_.Get(kube::kJobs, backup.metadata.ns, name);
  if (job == nullptr) return std::nullopt;
  JobOutcome outcome = OutcomeOf(*job, nlohmann::json::array());
  if (outcome.complete || outcome.failed) {
    // The result is the pod's termination message: one uncached read, once.
    absl::StatusOr<nlohmann::json> pods =
        client_.List(kube::kPods, backup.metadata.ns, {.label_selector = "job-name=" + name});
    if (!pods.ok()) return pods.status();
    outcome = OutcomeOf(*job, *pods);
  }
  return outcome;
}

template <typename Backup>
absl::Status BackupReconciler<Backup>::Act(const nlohmann::json& stored, const Backup& backup,
                                           const BackupStep<Status>& step) {
  const BackupPhasePlan<Status>& plan = step.plan;
  if (plan.create_job && step.job.has_value()) {
    absl::StatusOr<nlohmann::json> created = client_.Create(
        kube::kJobs, backup.metadata.ns, *step.job, {.field_manager = kBackupFieldManager});
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
    if (created.ok()) recorder_.Normal(stored, info_.started_event, step.started_message);
  }
  if (plan.status.phase != backup.status.phase) {
    if (plan.status.phase == api::kBackupComplete) {
      recorder_.Normal(stored, info_.complete_event, plan.status.conditions[0].message);
    } else if (plan.status.phase == api::kBackupFailed) {
      recorder_.Warning(stored, info_.failed_event, plan.status.conditions[1].message);
    }
  }
  return absl::OkStatus();
}

template <typename Backup>
absl::Status BackupReconciler<Backup>::WriteStatus(const Backup& b, const Status& status) {
  if (status == b.status) return absl::OkStatus();
  const nlohmann::json patch = {
      {"apiVersion", info_.backups.group + "/" + info_.backups.version},
      {"kind", info_.kind},
      {"metadata", {{"name", b.metadata.name}, {"namespace", b.metadata.ns}}},
      {"status", ToJson(status)}};  // api::ToJson, found by argument
  absl::StatusOr<nlohmann::json> wrote = client_.ApplyStatus(
      info_.backups, b.metadata.ns, patch, {.field_manager = kBackupFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_IMPL_H_
