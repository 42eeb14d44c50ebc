#include "src/controllers/etcdbackup/plan.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/backup_phase.h"
#include "src/backup/snapshot_job.h"
#include "src/controllers/etcdbackup/job.h"

namespace quorum::etcdbackup {
namespace {

using Json = nlohmann::json;

bool IsFinal(const std::string& phase) {
  return phase == api::kBackupComplete || phase == api::kBackupFailed;
}

// file:///backup/<sub>/<name> (as the Job saw it) -> pvc://<claim>/<sub>/<name>.
std::string PvcUri(const api::BackupPvc& pvc, const std::string& file_uri) {
  absl::string_view path = file_uri;
  absl::ConsumePrefix(&path, "file:///backup");
  absl::ConsumePrefix(&path, "/");
  return absl::StrCat("pvc://", pvc.claim_name, "/", path);
}

}  // namespace

BackupPlan PlanBackup(const BackupObservation& o) {
  const api::EtcdBackup& b = *o.backup;
  const api::EtcdBackupStatus& old = b.status;
  const int64_t gen = b.metadata.generation;
  BackupPlan plan;
  if (IsFinal(old.phase)) {
    plan.status = old;
    return plan;
  }
  api::EtcdBackupStatus& s = plan.status;
  s.observed_generation = gen;
  s.job_name = old.job_name;
  auto set = [&](const std::string& phase, bool complete, bool failed, const std::string& reason,
                 const std::string& message) {
    s.phase = phase;
    controllers::AppendBackupCondition(s, old, "Complete", complete, reason, message, gen, o.now);
    controllers::AppendBackupCondition(s, old, "Failed", failed, reason, message, gen, o.now);
  };
  if (!o.job.has_value()) {
    std::string reason, message;
    if (o.cluster == nullptr) {
      reason = "ClusterNotFound";
      message = "EtcdCluster " + b.spec.cluster_ref + " does not exist in this namespace";
    } else if (!o.cluster_serves) {
      reason = "ClusterNotReady";
      message = "waiting for EtcdCluster " + b.spec.cluster_ref +
                " to have a quorum (a majority of its members healthy)";
    }
    if (!reason.empty() && o.age >= api::kBackupStartTimeout) {
      set(std::string(api::kBackupFailed), false, true, "StartTimeout",
          absl::StrCat("not started within ", absl::FormatDuration(api::kBackupStartTimeout), ": ",
                       message));
      return plan;
    }
    if (!reason.empty()) {
      set(std::string(api::kBackupPending), false, false, reason, message);
      plan.recheck_after = api::kBackupStartTimeout - o.age;
      return plan;
    }
    plan.create_job = true;
    s.job_name = JobName(b);
    set(std::string(api::kBackupStarted), false, false, "JobCreated",
        "Job " + s.job_name + " takes the snapshot");
    return plan;
  }
  s.job_name = JobName(b);
  if (o.job->complete) {
    absl::StatusOr<backup::SnapshotJobResult> r = backup::ParseResultJson(o.job->message);
    if (!r.ok()) {
      set(std::string(api::kBackupFailed), false, true, "ResultUnreadable",
          "the Job succeeded but reported no snapshot: " + o.job->message.substr(0, 512));
      return plan;
    }
    api::BackupSnapshotStatus snap{
        .uri = r->uri,
        .revision = r->revision,
        .size = static_cast<int64_t>(r->size),
        .sha256 = r->sha256,
        .taken_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", r->taken_at, absl::UTCTimeZone())};
    if (b.spec.destination.pvc && absl::StartsWith(r->uri, "file://")) {
      snap.uri = PvcUri(*b.spec.destination.pvc, r->uri);
    }
    s.snapshot = snap;
    set(std::string(api::kBackupComplete), true, false, "SnapshotStored",
        absl::StrCat("revision ", snap.revision, ", ", snap.size, " bytes, sha256 ", snap.sha256,
                     " at ", snap.uri));
    return plan;
  }
  if (o.job->failed) {
    set(std::string(api::kBackupFailed), false, true, "SnapshotFailed",
        o.job->message.empty() ? "the Job failed" : o.job->message.substr(0, 1024));
    return plan;
  }
  set(std::string(api::kBackupStarted), false, false, "JobRunning",
      "Job " + s.job_name + " takes the snapshot");
  return plan;
}

}  // namespace quorum::etcdbackup
