// EtcdBackupReconciler: one EtcdBackup to one snapshot Job and a final
// status. Each reconcile, in order:
//   parse    api::ParseEtcdBackup (the admission rules; a bad object is Failed)
//   observe  the cache: the backup, its EtcdCluster, its Job; the Job's pods
//            (one uncached List) only once the Job has finished
//   plan     plan.h PlanBackup: pure, the phase and whether to create the Job
//   act      create the Job (job.h BuildSnapshotJob) when planned
//   status   server-side apply of status, only when it changed
// Nothing polls: the Job's watch (owner) and the EtcdCluster's watch (an
// index of backups by clusterRef) wake a backup. A Complete or Failed backup
// costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different backups.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_

#include <string>

#include "src/controllers/common/resources.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"
#include "src/kube/resources.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::etcdbackup {

using controllers::kEtcdBackups;
using kube::kJobs;
// Index on the EtcdBackup informer: "<ns>/<clusterRef>".
inline constexpr char kClusterIndex[] = "etcdbackup-cluster";

class EtcdBackupReconciler : public runtime::Reconciler {
 public:
  // `image`: the operator's own image, which the Job runs.
  EtcdBackupReconciler(kube::Client& client, runtime::Cache& cache,
                       runtime::EventRecorder& recorder, std::string image);
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  const std::string image_;
};

// Registers the informers, the controller and its watches on `manager`.
runtime::Controller& SetupEtcdBackupController(runtime::Manager& manager,
                                               EtcdBackupReconciler& reconciler, int workers);

}  // namespace quorum::etcdbackup

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUP_RECONCILER_H_
