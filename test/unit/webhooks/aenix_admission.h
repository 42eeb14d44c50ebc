// What the API server does with an aenix manifest when Quorum's webhooks are
// installed, for the parity tests with the aenix etcd-operator v0.4.5: the
// mutating handler's patch is applied (to the stored object on UPDATE too, as
// it was when it was stored), then the validating handler decides. Header-only.
#ifndef QUORUM_TEST_UNIT_WEBHOOKS_AENIX_ADMISSION_H_
#define QUORUM_TEST_UNIT_WEBHOOKS_AENIX_ADMISSION_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "src/runtime/admission.h"
#include "src/webhooks/etcdbackup_webhook.h"
#include "src/webhooks/etcdbackupschedule_webhook.h"
#include "src/webhooks/etcdcluster_webhook.h"

namespace quorum::webhooks::aenix {

using Json = nlohmann::json;

// The expected outcome of one aenix case.
enum class Outcome { kAdmitted, kRefused };

inline runtime::AdmissionRequest Request(const char* kind, const char* resource,
                                         std::string operation, Json object, Json old_object) {
  runtime::AdmissionRequest r;
  r.uid = "uid-1";
  r.kind = {"etcd.aenix.io", "v1alpha1", kind};
  r.resource = {"etcd.aenix.io", "v1alpha1", resource};
  r.name = object.is_object() ? object["metadata"].value("name", "") : "";
  r.namespace_name = "default";
  r.operation = std::move(operation);
  r.object = std::move(object);
  r.old_object = std::move(old_object);
  return r;
}

inline Json Object(const char* kind, const Json& spec, const char* name = "test") {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", kind},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

// `obj` after the mutating EtcdCluster webhook (unchanged when it patches
// nothing).
inline Json Mutated(const Json& obj) {
  const runtime::AdmissionResponse r =
      MutateEtcdCluster(Request("EtcdCluster", "etcdclusters", "CREATE", obj, nullptr));
  return r.patch.has_value() ? obj.patch(*r.patch) : obj;
}

// An EtcdCluster CREATE (old null) or UPDATE through both webhooks.
inline runtime::AdmissionResponse AdmitEtcdCluster(const Json& obj, const Json& old = nullptr) {
  const std::string op = old.is_null() ? "CREATE" : "UPDATE";
  return ValidateEtcdClusterAdmission(
      Request("EtcdCluster", "etcdclusters", op, Mutated(obj), old.is_null() ? old : Mutated(old)));
}

inline runtime::AdmissionResponse AdmitEtcdBackup(const Json& obj, const Json& old = nullptr) {
  return ValidateEtcdBackupAdmission(
      Request("EtcdBackup", "etcdbackups", old.is_null() ? "CREATE" : "UPDATE", obj, old));
}

inline runtime::AdmissionResponse AdmitEtcdBackupSchedule(const Json& obj,
                                                          const Json& old = nullptr) {
  return ValidateEtcdBackupScheduleAdmission(Request(
      "EtcdBackupSchedule", "etcdbackupschedules", old.is_null() ? "CREATE" : "UPDATE", obj, old));
}

// "" when `r` matches: admitted, or refused with a message containing
// `mention` ("" matches any); else what went wrong.
inline std::string Mismatch(const runtime::AdmissionResponse& r, Outcome want,
                            const char* mention) {
  if (want == Outcome::kAdmitted) {
    return r.allowed ? "" : "refused: " + r.message;
  }
  if (r.allowed) {
    return "admitted (warnings: " + absl::StrJoin(r.warnings, " | ") + ")";
  }
  if (!absl::StrContains(r.message, mention)) {
    return "refused without naming \"" + std::string(mention) + "\": " + r.message;
  }
  return "";
}

// Whether one warning contains `part`.
inline bool Warns(const runtime::AdmissionResponse& r, const char* part) {
  for (const std::string& w : r.warnings) {
    if (absl::StrContains(w, part)) return true;
  }
  return false;
}

}  // namespace quorum::webhooks::aenix

#endif  // QUORUM_TEST_UNIT_WEBHOOKS_AENIX_ADMISSION_H_
