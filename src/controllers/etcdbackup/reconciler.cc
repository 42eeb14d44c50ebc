#include "src/controllers/etcdbackup/reconciler.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/etcdbackup/job.h"
#include "src/controllers/etcdbackup/plan.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/runtime/handler.h"

namespace quorum::etcdbackup {
namespace {

using Json = nlohmann::json;
constexpr char kFieldManager[] = "quorum-operator";

absl::Status WriteStatus(kube::Client& client, const api::EtcdBackup& b,
                         const api::EtcdBackupStatus& status) {
  if (status == b.status) return absl::OkStatus();
  const Json patch = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                      {"kind", "EtcdBackup"},
                      {"metadata", {{"name", b.metadata.name}, {"namespace", b.metadata.ns}}},
                      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote = client.ApplyStatus(kEtcdBackups, b.metadata.ns, patch,
                                                  {.field_manager = kFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace

EtcdBackupReconciler::EtcdBackupReconciler(kube::Client& client, runtime::Cache& cache,
                                           runtime::EventRecorder& recorder, std::string image)
    : client_(client), cache_(cache), recorder_(recorder), image_(std::move(image)) {}

absl::StatusOr<runtime::Result> EtcdBackupReconciler::Reconcile(const runtime::Request& req) {
  const runtime::ObjectPtr stored = cache_.Get(kEtcdBackups, req.ns, req.name);
  if (stored == nullptr) return runtime::Result{};
  // Parse: a backup the webhook should have refused is Failed, once.
  absl::StatusOr<api::EtcdBackup> parsed = api::ParseEtcdBackup(*stored);
  if (!parsed.ok()) {
    api::EtcdBackup b;
    b.metadata.name = req.name;
    b.metadata.ns = req.ns;
    const Json status = stored->value("status", Json::object());
    if (status.value("phase", "") == api::kBackupFailed) return runtime::Result{};
    api::EtcdBackupStatus failed{.phase = std::string(api::kBackupFailed)};
    failed.conditions.push_back({.type = "Failed",
                                 .status = "True",
                                 .reason = "InvalidSpec",
                                 .message = std::string(parsed.status().message()),
                                 .last_transition_time = Now()});
    recorder_.Warning(*stored, "InvalidSpec", std::string(parsed.status().message()));
    if (absl::Status s = WriteStatus(client_, b, failed); !s.ok()) return s;
    return runtime::Result{};
  }
  const api::EtcdBackup& backup = *parsed;
  if (backup.metadata.deleting) return runtime::Result{};
  // Observe.
  std::optional<api::EtcdCluster> cluster;
  if (runtime::ObjectPtr c =
          cache_.Get(etcdcluster::kEtcdClusters, req.ns, backup.spec.cluster_ref)) {
    if (absl::StatusOr<api::EtcdCluster> pc = api::ParseEtcdCluster(*c); pc.ok()) cluster = *pc;
  }
  BackupObservation obs{.backup = &backup,
                        .cluster = cluster ? &*cluster : nullptr,
                        .cluster_serves = cluster && api::HasQuorum(cluster->status),
                        .now = Now(),
                        .age = controllers::Age(*stored, absl::Now())};
  if (runtime::ObjectPtr job = cache_.Get(kJobs, req.ns, JobName(backup))) {
    JobOutcome outcome = OutcomeOf(*job, Json::array());
    if (outcome.complete || outcome.failed) {
      // The result is the pod's termination message: one uncached read, once.
      absl::StatusOr<Json> pods = client_.List(etcdcluster::kPods, req.ns,
                                               {.label_selector = "job-name=" + JobName(backup)});
      if (!pods.ok()) return pods.status();
      outcome = OutcomeOf(*job, *pods);
    }
    obs.job = outcome;
  }
  // Plan, act.
  const BackupPlan plan = PlanBackup(obs);
  if (plan.create_job) {
    absl::StatusOr<Json> created =
        client_.Create(kJobs, req.ns, BuildSnapshotJob(backup, *cluster, image_),
                       {.field_manager = kFieldManager});
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
    if (created.ok()) {
      recorder_.Normal(*stored, "SnapshotStarted", "Job " + JobName(backup) + " created");
    }
  }
  if (plan.status.phase != backup.status.phase) {
    if (plan.status.phase == api::kBackupComplete) {
      recorder_.Normal(*stored, "SnapshotComplete", plan.status.conditions[0].message);
    } else if (plan.status.phase == api::kBackupFailed) {
      recorder_.Warning(*stored, "SnapshotFailed", plan.status.conditions[1].message);
    }
  }
  // Status, last.
  if (absl::Status s = WriteStatus(client_, backup, plan.status); !s.ok()) return s;
  return runtime::Result{.requeue_after = plan.recheck_after.value_or(absl::ZeroDuration())};
}

runtime::Controller& SetupEtcdBackupController(runtime::Manager& manager,
                                               EtcdBackupReconciler& reconciler, int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& backups = cache.Informer(kEtcdBackups);
  backups.AddIndex(kClusterIndex, [](const Json& obj) {
    const std::string ns = obj["metadata"].value("namespace", "");
    const std::string cluster =
        obj.value("spec", Json::object()).value("clusterRef", Json::object()).value("name", "");
    return cluster.empty() ? std::vector<std::string>{}
                           : std::vector<std::string>{ns + "/" + cluster};
  });
  runtime::Controller& c = manager.AddController("etcdbackup", reconciler, {.workers = workers});
  c.Watch(backups, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(kJobs), runtime::EnqueueRequestForOwner("etcd.aenix.io", "EtcdBackup"),
          {runtime::ResourceVersionChangedPredicate()});
  // A cluster that appears or becomes Ready wakes the backups waiting for it.
  c.Watch(cache.Informer(etcdcluster::kEtcdClusters),
          runtime::EnqueueRequestsFromIndex(backups.store(), kClusterIndex,
                                            [](const Json& o) {
                                              return std::vector<std::string>{
                                                  o["metadata"].value("namespace", "") + "/" +
                                                  o["metadata"].value("name", "")};
                                            }),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::etcdbackup
