#include "src/controllers/etcdbackupschedule/prune.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/etcdbackupschedule.h"
#include "api/etcdcluster.h"
#include "src/controllers/common/job_outcome.h"

namespace quorum::etcdbackupschedule {
namespace {

using Json = nlohmann::json;
constexpr char kClaimDir[] = "/backup";

std::string ShortHash(const std::string& s) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d), 5));
}

bool IsSafeRelative(absl::string_view p) {
  if (p.empty() || p.front() == '/') return false;
  for (absl::string_view part : absl::StrSplit(p, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

Json PruneContainer(const std::vector<std::string>& paths, const std::string& image) {
  Json args = Json::array({"delete-snapshots", absl::StrCat("--dir=", kClaimDir)});
  for (const std::string& p : paths) args.push_back(p);
  return {
      {"name", "prune"},
      {"image", image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", args},
      {"volumeMounts", Json::array({{{"name", "backup"}, {"mountPath", kClaimDir}}})},
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
      {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}},
      {"securityContext", controllers::RestrictedContainerSecurity()},
  };
}

}  // namespace

absl::StatusOr<backup::S3Location> S3LocationOf(const api::BackupS3& dest, const std::string& uri) {
  absl::string_view rest = uri;
  const std::string bucket_prefix = absl::StrCat("s3://", dest.bucket, "/");
  if (!absl::ConsumePrefix(&rest, bucket_prefix) || rest.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(uri, " is not in the destination bucket ", dest.bucket));
  }
  return backup::S3Location{.endpoint = dest.endpoint,
                            .bucket = dest.bucket,
                            .key = std::string(rest),
                            .region = dest.region.empty() ? "us-east-1" : dest.region,
                            .force_path_style = dest.force_path_style};
}

absl::StatusOr<std::string> PvcPathOf(const api::BackupPvc& dest, const std::string& uri) {
  absl::string_view rest = uri;
  if (!absl::ConsumePrefix(&rest, absl::StrCat("pvc://", dest.claim_name, "/")) ||
      !IsSafeRelative(rest)) {
    return absl::FailedPreconditionError(
        absl::StrCat(uri, " is not a file in the destination claim ", dest.claim_name));
  }
  return std::string(rest);
}

std::string PruneJobName(const std::string& schedule, const std::vector<std::string>& paths) {
  const std::string suffix = absl::StrCat("-prune-", ShortHash(absl::StrJoin(paths, "\n")));
  std::string base = schedule.substr(0, 63 - suffix.size());
  while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  return base + suffix;
}

Json BuildPruneJob(const api::EtcdBackupSchedule& s, const std::vector<std::string>& paths,
                   const std::string& image) {
  const Json labels = {{"app.kubernetes.io/name", "etcd-backup-prune"},
                       {"app.kubernetes.io/managed-by", "quorum-operator"},
                       {"app.kubernetes.io/part-of", s.spec.cluster_ref}};
  const Json volumes = Json::array(
      {{{"name", "backup"},
        {"persistentVolumeClaim", {{"claimName", s.spec.destination.pvc->claim_name}}}}});
  const Json pod_spec = controllers::OneShotPodSpec(PruneContainer(paths, image), volumes, 65532);
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", PruneJobName(s.metadata.name, paths)},
        {"namespace", s.metadata.ns},
        {"labels", labels},
        {"ownerReferences", Json::array({{{"apiVersion", std::string(api::kEtcdApiVersion)},
                                          {"kind", std::string(api::kEtcdBackupScheduleKind)},
                                          {"name", s.metadata.name},
                                          {"uid", s.metadata.uid},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})}}},
      {"spec",
       {{"backoffLimit", 2},
        {"activeDeadlineSeconds", 600},
        {"ttlSecondsAfterFinished", 3600},
        {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}},
  };
}

}  // namespace quorum::etcdbackupschedule
