#include "src/controllers/postgresbackup/reconciler.h"

#include <optional>

#include "api/postgrescluster.h"
#include "api/postgrescluster_types.h"
#include "src/base/json_access.h"
#include "src/controllers/common/backup_reconciler_impl.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgresbackup/job.h"
#include "src/controllers/postgresbackup/plan.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/patroni/role.h"

template class quorum::controllers::BackupReconciler<quorum::api::PostgresBackup>;

namespace quorum::postgresbackup {
namespace {

using json_access::At;
using json_access::Int;
using json_access::Str;

controllers::BackupKindInfo Info() {
  return {.backups = kPostgresBackups,
          .kind = "PostgresBackup",
          .clusters = postgrescluster::kPostgresClusters,
          .controller = "postgresbackup",
          .cluster_index = kClusterIndex,
          // The members: ready, primary, on their StatefulSet's current template.
          .also_cached = {postgrescluster::kPods, postgrescluster::kStatefulSets},
          .started_event = "BackupStarted",
          .complete_event = "BackupComplete",
          .failed_event = "BackupFailed"};
}

// The cluster's member pods as plan.h reads them.
std::vector<MemberObservation> ObserveMembers(const runtime::Cache& cache,
                                              const api::PostgresCluster& cluster) {
  const std::string& ns = cluster.metadata.ns;
  std::vector<MemberObservation> out;
  for (const runtime::ObjectPtr& pod :
       cache.ByInstance(postgrescluster::kPods, ns, cluster.metadata.name)) {
    const kube::Json& labels = At(*pod, {"metadata", "labels"});
    if (Str(At(labels, {"app.kubernetes.io/name"})) != "postgres") continue;
    MemberObservation m{.name = Str(At(*pod, {"metadata", "name"})),
                        .set = Str(At(labels, {std::string(api::kInstanceSetLabel).c_str()})),
                        // A pod being deleted is leaving: never a host.
                        .ready = controllers::PodReady(*pod) &&
                                 !At(*pod, {"metadata", "deletionTimestamp"}).is_string(),
                        .primary = Str(At(labels, {std::string(patroni::kRoleLabel).c_str()})) ==
                                   patroni::kPrimaryLabelValue};
    if (runtime::ObjectPtr sts = cache.Get(postgrescluster::kStatefulSets, ns,
                                           postgrescluster::StatefulSetName(cluster, m.set))) {
      const std::string revision = controllers::StatefulSetUpdateRevision(*sts);
      const int64_t seen = Int(&At(*sts, {"status", "observedGeneration"})).value_or(0);
      const int64_t generation = Int(&At(*sts, {"metadata", "generation"})).value_or(1);
      m.current = !revision.empty() && seen >= generation &&
                  Str(At(labels, {"controller-revision-hash"})) == revision;
    }
    if (!m.ready) {
      for (const kube::Json& c : At(*pod, {"status", "conditions"})) {
        if (Str(At(c, {"type"})) == "Ready") m.not_ready_since = Str(At(c, {"lastTransitionTime"}));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
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
  if (cluster) obs.members = ObserveMembers(cache(), *cluster);
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
