// EtcdBackupScheduleReconciler::Prune*: the I/O of prune.h.
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etcdbackup_types.h"
#include "src/backup/s3.h"
#include "src/controllers/etcdbackup/plan.h"
#include "src/controllers/etcdbackup/reconciler.h"
#include "src/controllers/etcdbackupschedule/prune.h"
#include "src/controllers/etcdbackupschedule/reconciler.h"
#include "src/controllers/etcdcluster/resources.h"

namespace quorum::etcdbackupschedule {
namespace {

using Json = nlohmann::json;

// The store's keys from the destination's Secret. FailedPrecondition when a
// key is missing; the Secret's errors otherwise. Values are never logged.
absl::StatusOr<backup::SigV4Credentials> S3Credentials(kube::Client& client, const std::string& ns,
                                                       const std::string& secret) {
  absl::StatusOr<Json> s = client.Get(etcdcluster::kSecrets, ns, secret);
  if (!s.ok()) return s.status();
  const Json data = s->value("data", Json::object());
  backup::SigV4Credentials c;
  std::string id, key;
  if (!absl::Base64Unescape(data.value(std::string(api::kS3AccessKeyIdKey), ""), &id) ||
      !absl::Base64Unescape(data.value(std::string(api::kS3SecretAccessKeyKey), ""), &key) ||
      id.empty() || key.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("Secret ", secret, " lacks ",
                                                      std::string(api::kS3AccessKeyIdKey), " or ",
                                                      std::string(api::kS3SecretAccessKeyKey)));
  }
  c = backup::CleanCredentials(id, key);
  if (c.access_key_id.empty() || c.secret_access_key.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("Secret ", secret, " has an empty ",
                                                      std::string(api::kS3AccessKeyIdKey), " or ",
                                                      std::string(api::kS3SecretAccessKeyKey)));
  }
  return c;
}

}  // namespace

std::vector<api::ScheduledSnapshot> EtcdBackupScheduleReconciler::Prune(
    const Json& stored, const api::EtcdBackupSchedule& schedule,
    const std::vector<api::ScheduledSnapshot>& prune, absl::Status& error) {
  if (prune.empty()) return {};
  if (schedule.spec.destination.s3) return PruneS3(stored, schedule, prune, error);
  return PrunePvc(stored, schedule, prune, error);
}

std::vector<api::ScheduledSnapshot> EtcdBackupScheduleReconciler::PruneS3(
    const Json& stored, const api::EtcdBackupSchedule& schedule,
    const std::vector<api::ScheduledSnapshot>& prune, absl::Status& error) {
  const api::BackupS3& dest = *schedule.spec.destination.s3;
  absl::StatusOr<backup::SigV4Credentials> creds =
      S3Credentials(client_, schedule.metadata.ns, dest.credentials_secret);
  if (!creds.ok()) {
    error = creds.status();
    recorder_.Warning(stored, "SnapshotDeleteFailed", std::string(creds.status().message()));
    return prune;
  }
  std::vector<api::ScheduledSnapshot> pending;
  for (const api::ScheduledSnapshot& snap : prune) {
    absl::StatusOr<backup::S3Location> at = S3LocationOf(dest, snap.uri);
    if (!at.ok()) {  // another destination: not ours to delete any more
      recorder_.Warning(stored, "SnapshotUntracked",
                        absl::StrCat(at.status().message(), "; left in place"));
      continue;
    }
    at->ca_file = s3_ca_file_;
    // The request's signing time, not a decision: the store refuses a
    // signature far from its own clock, so this is the wall clock's time and
    // never the reconciler's (a test's FakeClock may stand a day ahead).
    absl::Status s = backup::DeleteObject(*at, *creds, RealClock().Now());
    if (!s.ok()) {
      error = s;
      recorder_.Warning(stored, "SnapshotDeleteFailed", std::string(s.message()));
      pending.push_back(snap);
      continue;
    }
    recorder_.Normal(stored, "SnapshotDeleted", absl::StrCat(snap.uri, " deleted (retention)"));
  }
  return pending;
}

std::vector<api::ScheduledSnapshot> EtcdBackupScheduleReconciler::PrunePvc(
    const Json& stored, const api::EtcdBackupSchedule& schedule,
    const std::vector<api::ScheduledSnapshot>& prune, absl::Status& error) {
  const api::BackupPvc& dest = *schedule.spec.destination.pvc;
  std::vector<std::string> paths;
  std::vector<api::ScheduledSnapshot> ours;
  for (const api::ScheduledSnapshot& snap : prune) {
    absl::StatusOr<std::string> path = PvcPathOf(dest, snap.uri);
    if (!path.ok()) {
      recorder_.Warning(stored, "SnapshotUntracked",
                        absl::StrCat(path.status().message(), "; left in place"));
      continue;
    }
    paths.push_back(*path);
    ours.push_back(snap);
  }
  if (paths.empty()) return {};
  const std::string& ns = schedule.metadata.ns;
  const std::string name = PruneJobName(schedule.metadata.name, paths);
  const runtime::ObjectPtr job = cache_.Get(etcdbackup::kJobs, ns, name);
  if (job == nullptr) {
    absl::StatusOr<Json> created =
        client_.Create(etcdbackup::kJobs, ns, BuildPruneJob(schedule, paths, image_),
                       {.field_manager = "quorum-operator"});
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) error = created.status();
    if (created.ok()) {
      recorder_.Normal(stored, "PruneJobCreated",
                       absl::StrCat("Job ", name, " deletes ", absl::StrJoin(paths, ", ")));
    }
    return ours;
  }
  const etcdbackup::JobOutcome outcome = etcdbackup::OutcomeOf(*job, Json::array());
  if (outcome.failed) {
    // Deleting the failed Job makes the next reconcile try again.
    recorder_.Warning(stored, "PruneJobFailed",
                      absl::StrCat("Job ", name, " failed: ", outcome.message));
  }
  if (!outcome.complete) return ours;
  for (const api::ScheduledSnapshot& snap : ours) {
    recorder_.Normal(stored, "SnapshotDeleted", absl::StrCat(snap.uri, " deleted (retention)"));
  }
  return {};
}

}  // namespace quorum::etcdbackupschedule
