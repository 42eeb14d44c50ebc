// The admission rules of EtcdBackupSchedule (etcdbackupschedule_types.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "api/cron.h"
#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

const Json* Child(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  return it == o->end() || it->is_null() ? nullptr : &*it;
}

void ValidateCron(const Json* spec, std::vector<FieldError>& out) {
  const Json* s = Child(spec, "schedule");
  if (s == nullptr || !s->is_string() || s->get<std::string>().empty()) {
    out.push_back({"spec.schedule", "want a cron schedule, e.g. \"0 3 * * *\""});
    return;
  }
  absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(s->get<std::string>());
  if (!cron.ok()) out.push_back({"spec.schedule", std::string(cron.status().message())});
}

// An integer >= `min` when present.
void ValidateCount(const Json* spec, const char* key, int64_t min, std::vector<FieldError>& out) {
  const Json* v = Child(spec, key);
  if (v == nullptr) return;
  if (!v->is_number_integer() || v->get<int64_t>() < min || v->get<int64_t>() > INT32_MAX) {
    out.push_back({absl::StrCat("spec.", key), absl::StrCat("want an integer >= ", min)});
  }
}

void ValidateKeepWithin(const Json* spec, std::vector<FieldError>& out) {
  const Json* v = Child(spec, "keepWithin");
  if (v == nullptr) return;
  absl::Duration d;
  if (!v->is_string() || !absl::ParseDuration(v->get<std::string>(), &d) ||
      d <= absl::ZeroDuration() || d == absl::InfiniteDuration()) {
    out.push_back({"spec.keepWithin", "want a positive duration such as \"90m\" or \"168h\""});
  }
}

}  // namespace

std::vector<FieldError> ValidateEtcdBackupSchedule(const Json& obj) {
  std::vector<FieldError> out;
  const Json* spec = Child(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) {
    out.push_back({"spec", "required"});
    return out;
  }
  const Json* ref = Child(Child(spec, "clusterRef"), "name");
  if (ref == nullptr || !ref->is_string() || ref->get<std::string>().empty()) {
    out.push_back({"spec.clusterRef.name", "name an EtcdCluster in this namespace"});
  }
  ValidateCron(spec, out);
  for (FieldError& e : ValidateBackupDestination(Child(spec, "destination"), "spec.destination")) {
    out.push_back(std::move(e));
  }
  ValidateCount(spec, "successfulJobsHistoryLimit", 0, out);
  ValidateCount(spec, "failedJobsHistoryLimit", 0, out);
  ValidateCount(spec, "keepLast", 1, out);
  ValidateCount(spec, "activeBackupJobDeadline", 0, out);
  ValidateCount(spec, "finishedBackupJobsTTL", 0, out);
  ValidateKeepWithin(spec, out);
  return out;
}

}  // namespace quorum::api
