#include "src/controllers/postgresbackup/reconciler.h"

#include <optional>

#include "api/postgrescluster_types.h"
#include "src/base/json_access.h"
#include "src/controllers/common/backup_reconciler_impl.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgresbackup/job.h"
#include "src/controllers/postgresbackup/plan.h"
#include "src/controllers/postgrescluster/reconciler.h"

template class quorum::controllers::BackupReconciler<quorum::api::PostgresBackup>;

namespace quorum::postgresbackup {
namespace {

using json_access::At;
using json_access::Str;

controllers::BackupKindInfo Info() {
  return {.backups = kPostgresBackups,
          .kind = "PostgresBackup",
          .clusters = postgrescluster::kPostgresClusters,
          .controller = "postgresbackup",
          .cluster_index = kClusterIndex,
          .also_cached = {postgrescluster::kPods},  // which members are ready
          .started_event = "BackupStarted",
          .complete_event = "BackupComplete",
          .failed_event = "BackupFailed"};
}

}  // namespace

PostgresBackupReconciler::PostgresBackupReconciler(kube::Client& client, runtime::Cache& cache,
                                                   runtime::EventRecorder& recorder, Clock& clock)
    : BackupReconciler(client, cache, recorder, clock, Info()) {}

absl::StatusOr<api::PostgresBackup> PostgresBackupReconciler::Parse(
    const kube::Json& stored) const {
  return api::ParsePostgresBackup(stored);
}

std::string PostgresBackupReconciler::JobName(const api::PostgresBackup& backup) const {
  return postgresbackup::JobName(backup);
}

controllers::BackupStep<api::PostgresBackupStatus> PostgresBackupReconciler::Plan(
    const api::PostgresBackup& backup, const std::optional<controllers::JobOutcome>& job,
    const controllers::BackupMoment& at) const {
  const std::string& ns = backup.metadata.ns;
  std::optional<api::PostgresCluster> cluster;
  if (runtime::ObjectPtr c =
          cache().Get(postgrescluster::kPostgresClusters, ns, backup.spec.cluster_ref)) {
    if (absl::StatusOr<api::PostgresCluster> pc = api::ParsePostgresCluster(*c); pc.ok()) {
      cluster = *std::move(pc);
    }
  }
  BackupObservation obs{.backup = &backup,
                        .cluster = cluster ? &*cluster : nullptr,
                        .job = job,
                        .now = at.now,
                        .age = at.age};
  if (cluster) {
    for (const runtime::ObjectPtr& pod :
         cache().ByInstance(postgrescluster::kPods, ns, cluster->metadata.name)) {
      if (Str(At(*pod, {"metadata", "labels", "app.kubernetes.io/name"})) == "postgres" &&
          controllers::PodReady(*pod)) {
        obs.ready_pods.push_back(Str(At(*pod, {"metadata", "name"})));
      }
    }
  }
  BackupPlan plan = PlanBackup(obs);
  controllers::BackupStep<api::PostgresBackupStatus> step;
  if (plan.create_job) {
    step.job = BuildBackupJob(backup, *cluster, plan.hosts, plan.from_standby);
    step.started_message = plan.status.conditions[0].message;
  }
  step.plan = std::move(plan);
  return step;
}

runtime::Controller& SetupPostgresBackupController(runtime::Manager& manager,
                                                   PostgresBackupReconciler& reconciler,
                                                   int workers) {
  return controllers::SetupBackupController(manager, reconciler, reconciler.info(), workers);
}

}  // namespace quorum::postgresbackup
