// BackupReconciler: one one-shot backup object (EtcdBackup, PostgresBackup)
// to one Job and a final status, the reconcile both kinds share. Each
// reconcile, in order:
//   parse    the kind's Parse (the admission rules; a bad object is Failed, once)
//   observe  the cache: the backup and its Job; the Job's pods (one uncached
//            List) only once the Job has finished; the kind's Plan observes
//            its own cluster
//   plan     the kind's Plan: pure (backup_phase.h), the status and the Job
//            to create, if any
//   act      create that Job (an existing one is kept)
//   status   server-side apply of status, only when it changed
// Nothing polls: the Job's watch (owner) and the cluster's watch (an index of
// backups by clusterRef) wake a backup; a Pending one asks to be looked at
// again when its start bound runs out. A Complete or Failed backup costs zero
// API writes. The time (condition transitions, the backup's age against
// api::kBackupStartTimeout) is the injected Clock's.
//
// A kind derives from BackupReconciler<Backup> and answers Parse, JobName and
// Plan; SetupBackupController registers its informers and watches.
// `Backup`: api::EtcdBackup or api::PostgresBackup (metadata, spec.cluster_ref,
// status with phase and conditions, an api::ToJson of the status).
// Thread-safety: Reconcile may run concurrently for different backups; the
// kind's hooks must allow it.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/base/clock.h"
#include "src/controllers/common/backup_phase.h"
#include "src/controllers/common/job_outcome.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::controllers {

// What names a backup kind: its resources, controller and events.
struct BackupKindInfo {
  kube::GroupVersionResource backups;   // the backup objects
  std::string kind;                     // their kind: "EtcdBackup"
  kube::GroupVersionResource clusters;  // what spec.clusterRef names (watched)
  std::string controller;               // the controller's name: "etcdbackup"
  std::string cluster_index;            // index on the backups: "<ns>/<clusterRef>"
  // Other informers the kind's Plan reads from the cache.
  std::vector<kube::GroupVersionResource> also_cached;
  // Event reasons: the Job created, the backup Complete, the backup Failed.
  std::string started_event, complete_event, failed_event;
};

// What the kind's Plan decides for one reconcile.
template <typename Status>
struct BackupStep {
  BackupPhasePlan<Status> plan;
  std::optional<nlohmann::json> job;  // with plan.create_job: the Job to create
  std::string started_message;        // the started event's message
};

template <typename Backup>
class BackupReconciler : public runtime::Reconciler {
 public:
  using Status = decltype(Backup::status);
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) final;
  const BackupKindInfo& info() const { return info_; }

 protected:
  BackupReconciler(kube::Client& client, runtime::Cache& cache, runtime::EventRecorder& recorder,
                   Clock& clock, BackupKindInfo info);
  runtime::Cache& cache() const { return cache_; }

  // The backup as admission reads it; InvalidArgument for one it refuses.
  virtual absl::StatusOr<Backup> Parse(const nlohmann::json& stored) const = 0;
  // The backup's Job's deterministic name.
  virtual std::string JobName(const Backup& backup) const = 0;
  // Observes the backup's cluster in the cache and plans (pure planner,
  // pure Job builder): `job` is the Job's outcome, nullopt when there is none.
  virtual BackupStep<Status> Plan(const Backup& backup, const std::optional<JobOutcome>& job,
                                  const BackupMoment& at) const = 0;

 private:
  absl::Status RefuseInvalid(const runtime::Request& req, const nlohmann::json& stored,
                             const absl::Status& why, absl::Time now);
  absl::StatusOr<std::optional<JobOutcome>> ObserveJob(const Backup& backup);
  absl::Status Act(const nlohmann::json& stored, const Backup& backup,
                   const BackupStep<Status>& step);
  absl::Status WriteStatus(const Backup& backup, const Status& status);

  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  Clock& clock_;
  const BackupKindInfo info_;
};

// Registers the kind's informers (with the clusterRef index), the controller
// and its watches (the backups, their Jobs by owner, their clusters by the
// index) on `manager`.
runtime::Controller& SetupBackupController(runtime::Manager& manager,
                                           runtime::Reconciler& reconciler,
                                           const BackupKindInfo& info, int workers);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_RECONCILER_H_
