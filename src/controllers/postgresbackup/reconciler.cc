#include "src/controllers/postgresbackup/reconciler.h"

#include <optional>

#include "absl/time/clock.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgresbackup/job.h"
#include "src/controllers/postgresbackup/plan.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/runtime/handler.h"

namespace quorum::postgresbackup {
namespace {

using Json = nlohmann::json;
using json_access::At;
using json_access::Str;
constexpr char kFieldManager[] = "quorum-operator";

absl::Status WriteStatus(kube::Client& client, const api::PostgresBackup& b,
                         const api::PostgresBackupStatus& status) {
  if (status == b.status) return absl::OkStatus();
  const Json patch = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
                      {"kind", "PostgresBackup"},
                      {"metadata", {{"name", b.metadata.name}, {"namespace", b.metadata.ns}}},
                      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote = client.ApplyStatus(kPostgresBackups, b.metadata.ns, patch,
                                                  {.field_manager = kFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace

PostgresBackupReconciler::PostgresBackupReconciler(kube::Client& client, runtime::Cache& cache,
                                                   runtime::EventRecorder& recorder)
    : client_(client), cache_(cache), recorder_(recorder) {}

absl::StatusOr<runtime::Result> PostgresBackupReconciler::Reconcile(const runtime::Request& req) {
  const runtime::ObjectPtr stored = cache_.Get(kPostgresBackups, req.ns, req.name);
  if (stored == nullptr) return runtime::Result{};
  // Parse: a backup the webhook should have refused is Failed, once.
  absl::StatusOr<api::PostgresBackup> parsed = api::ParsePostgresBackup(*stored);
  if (!parsed.ok()) {
    api::PostgresBackup b;
    b.metadata.name = req.name;
    b.metadata.ns = req.ns;
    const Json status = stored->value("status", Json::object());
    if (status.value("phase", "") == api::kBackupFailed) return runtime::Result{};
    api::PostgresBackupStatus failed{.phase = std::string(api::kBackupFailed)};
    failed.conditions.push_back({.type = "Failed",
                                 .status = "True",
                                 .reason = "InvalidSpec",
                                 .message = std::string(parsed.status().message()),
                                 .last_transition_time = Now()});
    recorder_.Warning(*stored, "InvalidSpec", std::string(parsed.status().message()));
    if (absl::Status s = WriteStatus(client_, b, failed); !s.ok()) return s;
    return runtime::Result{};
  }
  const api::PostgresBackup& backup = *parsed;
  if (backup.metadata.deleting) return runtime::Result{};
  // Observe.
  std::optional<api::PostgresCluster> cluster;
  if (runtime::ObjectPtr c =
          cache_.Get(postgrescluster::kPostgresClusters, req.ns, backup.spec.cluster_ref)) {
    if (absl::StatusOr<api::PostgresCluster> pc = api::ParsePostgresCluster(*c); pc.ok()) {
      cluster = *std::move(pc);
    }
  }
  BackupObservation obs{.backup = &backup,
                        .cluster = cluster ? &*cluster : nullptr,
                        .now = Now(),
                        .age = controllers::Age(*stored, absl::Now())};
  if (cluster) {
    for (const runtime::ObjectPtr& pod :
         cache_.ByInstance(postgrescluster::kPods, req.ns, cluster->metadata.name)) {
      if (Str(At(*pod, {"metadata", "labels", "app.kubernetes.io/name"})) == "postgres" &&
          controllers::PodReady(*pod)) {
        obs.ready_pods.push_back(Str(At(*pod, {"metadata", "name"})));
      }
    }
  }
  if (runtime::ObjectPtr job = cache_.Get(kJobs, req.ns, JobName(backup))) {
    controllers::JobOutcome outcome = controllers::OutcomeOf(*job, Json::array());
    if (outcome.complete || outcome.failed) {
      // The result is the pod's termination message: one uncached read, once.
      absl::StatusOr<Json> pods = client_.List(postgrescluster::kPods, req.ns,
                                               {.label_selector = "job-name=" + JobName(backup)});
      if (!pods.ok()) return pods.status();
      outcome = controllers::OutcomeOf(*job, *pods);
    }
    obs.job = outcome;
  }
  // Plan, act.
  const BackupPlan plan = PlanBackup(obs);
  if (plan.create_job) {
    absl::StatusOr<Json> created = client_.Create(
        kJobs, req.ns, BuildBackupJob(backup, *cluster, plan.hosts, plan.from_standby),
        {.field_manager = kFieldManager});
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
    if (created.ok()) {
      recorder_.Normal(*stored, "BackupStarted", plan.status.conditions[0].message);
    }
  }
  if (plan.status.phase != backup.status.phase) {
    if (plan.status.phase == api::kBackupComplete) {
      recorder_.Normal(*stored, "BackupComplete", plan.status.conditions[0].message);
    } else if (plan.status.phase == api::kBackupFailed) {
      recorder_.Warning(*stored, "BackupFailed", plan.status.conditions[1].message);
    }
  }
  // Status, last.
  if (absl::Status s = WriteStatus(client_, backup, plan.status); !s.ok()) return s;
  return runtime::Result{.requeue_after = plan.recheck_after.value_or(absl::ZeroDuration())};
}

runtime::Controller& SetupPostgresBackupController(runtime::Manager& manager,
                                                   PostgresBackupReconciler& reconciler,
                                                   int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& backups = cache.Informer(kPostgresBackups);
  cache.Informer(postgrescluster::kPods);  // which members are ready
  backups.AddIndex(kClusterIndex, [](const Json& obj) {
    const std::string ns = obj["metadata"].value("namespace", "");
    const std::string cluster =
        obj.value("spec", Json::object()).value("clusterRef", Json::object()).value("name", "");
    return cluster.empty() ? std::vector<std::string>{}
                           : std::vector<std::string>{ns + "/" + cluster};
  });
  runtime::Controller& c =
      manager.AddController("postgresbackup", reconciler, {.workers = workers});
  c.Watch(backups, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(kJobs),
          runtime::EnqueueRequestForOwner("postgres.quorum.dev", "PostgresBackup"),
          {runtime::ResourceVersionChangedPredicate()});
  // A cluster that appears or becomes Ready wakes the backups waiting for it.
  c.Watch(cache.Informer(postgrescluster::kPostgresClusters),
          runtime::EnqueueRequestsFromIndex(backups.store(), kClusterIndex,
                                            [](const Json& o) {
                                              return std::vector<std::string>{
                                                  o["metadata"].value("namespace", "") + "/" +
                                                  o["metadata"].value("name", "")};
                                            }),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::postgresbackup
