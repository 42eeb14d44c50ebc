#include "src/controllers/etcdbackup/plan.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "src/backup/snapshot_job.h"
#include "src/controllers/common/backup_phase.h"
#include "src/controllers/etcdbackup/job.h"

namespace quorum::etcdbackup {
namespace {

// file:///backup/<sub>/<name> (as the Job saw it) -> pvc://<claim>/<sub>/<name>.
std::string PvcUri(const api::BackupPvc& pvc, const std::string& file_uri) {
  absl::string_view path = file_uri;
  absl::ConsumePrefix(&path, "file:///backup");
  absl::ConsumePrefix(&path, "/");
  return absl::StrCat("pvc://", pvc.claim_name, "/", path);
}

controllers::BackupWait WhyWait(const BackupObservation& o) {
  const std::string& name = o.backup->spec.cluster_ref;
  if (o.cluster == nullptr) {
    return {"ClusterNotFound", "EtcdCluster " + name + " does not exist in this namespace"};
  }
  if (!o.cluster_serves) {
    return {"ClusterNotReady", "waiting for EtcdCluster " + name +
                                   " to have a quorum (a majority of its members healthy)"};
  }
  return {};
}

// The snapshot the Job reports, into status.snapshot.
controllers::BackupReport ReadSnapshot(const api::EtcdBackup& b, const std::string& report,
                                       api::EtcdBackupStatus& s) {
  absl::StatusOr<backup::SnapshotJobResult> r = backup::ParseResultJson(report);
  if (!r.ok()) {
    return {.message = "the Job succeeded but reported no snapshot: " + report.substr(0, 512)};
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
  return {.readable = true,
          .message = absl::StrCat("revision ", snap.revision, ", ", snap.size, " bytes, sha256 ",
                                  snap.sha256, " at ", snap.uri)};
}

}  // namespace

BackupPlan PlanBackup(const BackupObservation& o) {
  const api::EtcdBackup& b = *o.backup;
  const std::string job = JobName(b);
  const controllers::BackupPhaseKind<api::EtcdBackupStatus> kind{
      .job_name = job,
      .wait = WhyWait(o),
      .created_message = "Job " + job + " takes the snapshot",
      .running_message = "Job " + job + " takes the snapshot",
      .complete_reason = "SnapshotStored",
      .failed_reason = "SnapshotFailed",
      .failed_message_limit = 1024,
      .read_report = [&b](const std::string& report, api::EtcdBackupStatus& s) {
        return ReadSnapshot(b, report, s);
      }};
  return controllers::PlanBackupPhase(b.status, b.metadata.generation, o.job,
                                      {.now = o.now, .age = o.age}, kind);
}

}  // namespace quorum::etcdbackup
