// PostgresBackupReconciler: one PostgresBackup to one backup Job and a final
// status; the reconcile is common/backup_reconciler.h's, this is
// PostgresBackup's part of it:
//   parse    api::ParsePostgresBackup
//   plan     its PostgresCluster, the cluster's member pods (ready, labelled
//            primary, on their StatefulSet's current template) and
//            StatefulSets from the cache, plan.h PlanBackup, job.h
//            BuildBackupJob
// The PostgresCluster's watch (an index of backups by clusterRef; its status
// follows its pods' readiness, primary and template) and the Job's wake a
// backup. A Complete or Failed backup costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different backups.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_

#include "api/postgresbackup_types.h"
#include "src/base/clock.h"
#include "src/controllers/common/backup_reconciler.h"
#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"

namespace quorum::postgresbackup {

using controllers::kPostgresBackups;
using kube::kJobs;
// Index on the PostgresBackup informer: "<ns>/<clusterRef>".
inline constexpr char kClusterIndex[] = "postgresbackup-cluster";

class PostgresBackupReconciler : public controllers::BackupReconciler<api::PostgresBackup> {
 public:
  // `clock`: the time of conditions and of the start bound (tests advance a
  // FakeClock).
  PostgresBackupReconciler(kube::Client& client, runtime::Cache& cache,
                           runtime::EventRecorder& recorder, Clock& clock = RealClock());

 private:
  absl::StatusOr<api::PostgresBackup> Parse(const kube::Json& stored) const override;
  std::string JobName(const api::PostgresBackup& backup) const override;
  controllers::BackupStep<api::PostgresBackupStatus> Plan(
      const api::PostgresBackup& backup, const std::optional<controllers::JobOutcome>& job,
      const controllers::BackupMoment& at) const override;
};

// Registers the informers, the controller and its watches on `manager`.
runtime::Controller& SetupPostgresBackupController(runtime::Manager& manager,
                                                   PostgresBackupReconciler& reconciler,
                                                   int workers);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_
