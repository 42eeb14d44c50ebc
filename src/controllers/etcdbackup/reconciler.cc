#include "src/controllers/etcdbackup/reconciler.h"

#include "api/etcdcluster_types.h"
#include "src/controllers/common/backup_reconciler_impl.h"
#include "src/controllers/etcdbackup/job.h"
#include "src/controllers/etcdbackup/plan.h"
#include "src/controllers/etcdcluster/resources.h"

template class quorum::controllers::BackupReconciler<quorum::api::EtcdBackup>;

namespace quorum::etcdbackup {
namespace {

controllers::BackupKindInfo Info() {
  return {.backups = kEtcdBackups,
          .kind = "EtcdBackup",
          .clusters = etcdcluster::kEtcdClusters,
          .controller = "etcdbackup",
          .cluster_index = kClusterIndex,
          .started_event = "SnapshotStarted",
          .complete_event = "SnapshotComplete",
          .failed_event = "SnapshotFailed"};
}

}  // namespace

EtcdBackupReconciler::EtcdBackupReconciler(kube::Client& client, runtime::Cache& cache,
                                           runtime::EventRecorder& recorder, std::string image,
                                           Clock& clock)
    : BackupReconciler(client, cache, recorder, clock, Info()), image_(std::move(image)) {}

absl::StatusOr<api::EtcdBackup> EtcdBackupReconciler::Parse(const kube::Json& stored) const {
  return api::ParseEtcdBackup(stored);
}

std::string EtcdBackupReconciler::JobName(const api::EtcdBackup& backup) const {
  return etcdbackup::JobName(backup);
}

controllers::BackupStep<api::EtcdBackupStatus> EtcdBackupReconciler::Plan(
    const api::EtcdBackup& backup, const std::optional<controllers::JobOutcome>& job,
    const controllers::BackupMoment& at) const {
  std::optional<api::EtcdCluster> cluster;
  if (runtime::ObjectPtr c =
          cache().Get(etcdcluster::kEtcdClusters, backup.metadata.ns, backup.spec.cluster_ref)) {
    if (absl::StatusOr<api::EtcdCluster> pc = api::ParseEtcdCluster(*c); pc.ok()) cluster = *pc;
  }
  controllers::BackupStep<api::EtcdBackupStatus> step{
      .plan = PlanBackup({.backup = &backup,
                          .cluster = cluster ? &*cluster : nullptr,
                          .cluster_serves = cluster && api::HasQuorum(cluster->status),
                          .job = job,
                          .now = at.now,
                          .age = at.age})};
  if (step.plan.create_job) {
    step.job = BuildSnapshotJob(backup, *cluster, image_);
    step.started_message = "Job " + etcdbackup::JobName(backup) + " created";
  }
  return step;
}

runtime::Controller& SetupEtcdBackupController(runtime::Manager& manager,
                                               EtcdBackupReconciler& reconciler, int workers) {
  return controllers::SetupBackupController(manager, reconciler, reconciler.info(), workers);
}

}  // namespace quorum::etcdbackup
