#include "src/controllers/etcdbackupschedule/backup.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule.h"
#include "api/etcdcluster.h"

namespace quorum::etcdbackupschedule {

using Json = nlohmann::json;

std::string ScheduledBackupName(const std::string& schedule, absl::Time scheduled_at) {
  const std::string suffix = absl::StrCat("-", absl::ToUnixSeconds(scheduled_at) / 60);
  std::string base = schedule.substr(0, 63 - suffix.size());
  while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  return base + suffix;
}

api::BackupDestination ScheduledDestination(const api::BackupDestination& destination,
                                            const std::string& backup) {
  api::BackupDestination out = destination;
  if (out.s3 && !out.s3->key.empty()) {
    out.s3->key = absl::StrCat(absl::StripSuffix(out.s3->key, "/"), "/", backup, ".db");
  }
  return out;
}

Json BuildScheduledBackup(const api::EtcdBackupSchedule& s, absl::Time scheduled_at) {
  std::string label = s.metadata.name.substr(0, 63);
  while (!label.empty() && (label.back() == '-' || label.back() == '.')) label.pop_back();
  const std::string name = ScheduledBackupName(s.metadata.name, scheduled_at);
  const std::string at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", scheduled_at, absl::UTCTimeZone());
  return {
      {"apiVersion", std::string(api::kEtcdApiVersion)},
      {"kind", std::string(api::kEtcdBackupKind)},
      {"metadata",
       {{"name", name},
        {"namespace", s.metadata.ns},
        {"labels", {{kScheduleLabel, label}}},
        {"annotations", {{std::string(api::kScheduledAtAnnotation), at}}},
        {"ownerReferences", Json::array({{{"apiVersion", std::string(api::kEtcdApiVersion)},
                                          {"kind", std::string(api::kEtcdBackupScheduleKind)},
                                          {"name", s.metadata.name},
                                          {"uid", s.metadata.uid},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})}}},
      {"spec",
       {{"clusterRef", {{"name", s.spec.cluster_ref}}},
        {"destination", api::ToJson(ScheduledDestination(s.spec.destination, name))}}},
  };
}

}  // namespace quorum::etcdbackupschedule
