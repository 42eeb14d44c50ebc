#include "api/etcdbackupschedule_types.h"

#include "api/decode.h"
#include "api/etcdbackup_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::Decoder;

void DecodeSnapshots(Decoder& d, const Json* status, std::vector<ScheduledSnapshot>& out) {
  const Json* list = d.Member(status, "status", "snapshots");
  for (size_t i = 0; list != nullptr && list->is_array() && i < list->size(); ++i) {
    const Json& s = (*list)[i];
    if (!s.is_object()) continue;
    const std::string at = "status.snapshots[" + std::to_string(i) + "]";
    ScheduledSnapshot& o = out.emplace_back();
    d.String(&s, at, "backup", o.backup);
    d.String(&s, at, "uri", o.uri);
    d.String(&s, at, "takenAt", o.taken_at);
    d.Int64(&s, at, "size", o.size);
    d.Int64(&s, at, "revision", o.revision);
  }
}

void DecodeStatus(Decoder& d, const Json* status, EtcdBackupScheduleStatus& out) {
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  internal::DecodeStatusConditions(d, status, out.conditions);
  d.String(status, "status", "lastScheduleTime", out.last_schedule_time);
  d.String(status, "status", "lastSuccessfulBackupTime", out.last_successful_backup_time);
  d.String(status, "status", "nextScheduleTime", out.next_schedule_time);
  DecodeSnapshots(d, status, out.snapshots);
}

void DecodeSpec(Decoder& d, const Json* spec, EtcdBackupScheduleSpec& out) {
  d.String(d.Member(spec, "spec", "clusterRef"), "spec.clusterRef", "name", out.cluster_ref);
  d.String(spec, "spec", "schedule", out.schedule);
  std::vector<FieldError> errors;
  out.destination =
      DecodeBackupDestination(d.Member(spec, "spec", "destination"), "spec.destination", errors);
  for (FieldError& e : errors) d.Fail(e.field, e.message);
  d.Int32(spec, "spec", "successfulJobsHistoryLimit", out.successful_jobs_history_limit);
  d.Int32(spec, "spec", "failedJobsHistoryLimit", out.failed_jobs_history_limit);
  d.Int32(spec, "spec", "keepLast", out.keep_last);
  d.String(spec, "spec", "keepWithin", out.keep_within_text);
  if (!out.keep_within_text.empty()) absl::ParseDuration(out.keep_within_text, &out.keep_within);
  d.Int64(spec, "spec", "activeBackupJobDeadline", out.active_backup_job_deadline);
  d.Int32(spec, "spec", "finishedBackupJobsTTL", out.finished_backup_jobs_ttl);
}

}  // namespace

absl::StatusOr<EtcdBackupSchedule> ParseEtcdBackupSchedule(const Json& obj) {
  if (!obj.is_object())
    return absl::InvalidArgumentError("an EtcdBackupSchedule must be an object");
  if (std::vector<FieldError> errors = ValidateEtcdBackupSchedule(obj); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  Decoder d;
  EtcdBackupSchedule out;
  const Json* meta = d.Member(&obj, "", "metadata");
  d.String(meta, "metadata", "name", out.metadata.name);
  d.String(meta, "metadata", "namespace", out.metadata.ns);
  d.String(meta, "metadata", "uid", out.metadata.uid);
  d.Int64(meta, "metadata", "generation", out.metadata.generation);
  d.String(meta, "metadata", "creationTimestamp", out.creation_timestamp);
  out.metadata.deleting = d.Member(meta, "metadata", "deletionTimestamp") != nullptr;
  DecodeSpec(d, d.Member(&obj, "", "spec"), out.spec);
  DecodeStatus(d, d.Member(&obj, "", "status"), out.status);
  if (absl::Status s = d.ToStatus(); !s.ok()) return s;
  return out;
}

Json ToJson(const EtcdBackupScheduleStatus& s) {
  Json conditions = Json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  Json snapshots = Json::array();
  for (const ScheduledSnapshot& x : s.snapshots) {
    snapshots.push_back({{"backup", x.backup},
                         {"uri", x.uri},
                         {"takenAt", x.taken_at},
                         {"size", x.size},
                         {"revision", x.revision}});
  }
  Json out = {{"observedGeneration", s.observed_generation},
              {"conditions", conditions},
              {"snapshots", snapshots}};
  if (!s.last_schedule_time.empty()) out["lastScheduleTime"] = s.last_schedule_time;
  if (!s.last_successful_backup_time.empty()) {
    out["lastSuccessfulBackupTime"] = s.last_successful_backup_time;
  }
  if (!s.next_schedule_time.empty()) out["nextScheduleTime"] = s.next_schedule_time;
  return out;
}

}  // namespace quorum::api
