// EtcdBackupReconciler: one EtcdBackup to one snapshot Job and a final
// status; the reconcile is common/backup_reconciler.h's, this is EtcdBackup's
// part of it:
//   parse    api::ParseEtcdBackup
//   plan     its EtcdCluster from the cache, plan.h PlanBackup (a quorum is
//            enough to start), job.h BuildSnapshotJob
// The EtcdCluster's watch (an index of backups by clusterRef) and the Job's
// wake a backup. A Complete or Failed backup costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different backups.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_

#include <string>

#include "api/etcdbackup_types.h"
#include "src/base/clock.h"
#include "src/controllers/common/backup_reconciler.h"
#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"

namespace quorum::etcdbackup {

using controllers::kEtcdBackups;
using kube::kJobs;
// Index on the EtcdBackup informer: "<ns>/<clusterRef>".
inline constexpr char kClusterIndex[] = "etcdbackup-cluster";

class EtcdBackupReconciler : public controllers::BackupReconciler<api::EtcdBackup> {
 public:
  // `image`: the operator's own image, which the Job runs. `clock`: the time
  // of conditions and of the start bound (tests advance a FakeClock).
  EtcdBackupReconciler(kube::Client& client, runtime::Cache& cache,
                       runtime::EventRecorder& recorder, std::string image,
                       Clock& clock = RealClock());

 private:
  absl::StatusOr<api::EtcdBackup> Parse(const kube::Json& stored) const override;
  std::string JobName(const api::EtcdBackup& backup) const override;
  controllers::BackupStep<api::EtcdBackupStatus> Plan(
      const api::EtcdBackup& backup, const std::optional<controllers::JobOutcome>& job,
      const controllers::BackupMoment& at) const override;

  const std::string image_;
};

// Registers the informers, the controller and its watches on `manager`.
runtime::Controller& SetupEtcdBackupController(runtime::Manager& manager,
                                               EtcdBackupReconciler& reconciler, int workers);

}  // namespace quorum::etcdbackup

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_
