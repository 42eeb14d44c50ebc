// PostgresBackupReconciler: one PostgresBackup to one backup Job and a final
// status. Each reconcile, in order:
//   parse    api::ParsePostgresBackup (the admission rules; a bad object is Failed)
//   observe  the cache: the backup, its PostgresCluster, its Job; the Job's
//            pods (one uncached List) only once the Job has finished
//   plan     plan.h PlanBackup: pure, the phase and whether to create the Job
//   act      create the Job (job.h BuildBackupJob) when planned
//   status   server-side apply of status, only when it changed
// Nothing polls: the Job's watch (owner) and the PostgresCluster's watch (an
// index of backups by clusterRef) wake a backup. A Complete or Failed backup
// costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different backups.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_

#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::postgresbackup {

using controllers::kPostgresBackups;
using kube::kJobs;
// Index on the PostgresBackup informer: "<ns>/<clusterRef>".
inline constexpr char kClusterIndex[] = "postgresbackup-cluster";

class PostgresBackupReconciler : public runtime::Reconciler {
 public:
  PostgresBackupReconciler(kube::Client& client, runtime::Cache& cache,
                           runtime::EventRecorder& recorder);
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
};

// Registers the informers, the controller and its watches on `manager`.
runtime::Controller& SetupPostgresBackupController(runtime::Manager& manager,
                                                   PostgresBackupReconciler& reconciler,
                                                   int workers);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_RECONCILER_H_
