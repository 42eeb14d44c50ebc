// Status conditions (metav1.Condition) as controllers write them: the
// condition's lastTransitionTime is kept while its status stays the same, so
// rewriting an unchanged condition changes nothing. Header-only; pure.
#ifndef QUORUM_SRC_RUNTIME_CONDITIONS_H_
#define QUORUM_SRC_RUNTIME_CONDITIONS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/time/time.h"

namespace quorum::runtime {

inline std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// The condition `type` in object.status.conditions, or null.
inline nlohmann::json FindCondition(const nlohmann::json& object, const std::string& type) {
  const nlohmann::json status = object.value("status", nlohmann::json::object());
  for (const nlohmann::json& c : status.value("conditions", nlohmann::json::array())) {
    if (c.is_object() && c.value("type", "") == type) return c;
  }
  return nullptr;
}

// A condition of `object` (which holds the previous status) at `now`.
inline nlohmann::json MakeCondition(const nlohmann::json& object, const std::string& type, bool ok,
                                    const std::string& reason, const std::string& message,
                                    absl::Time now) {
  const std::string status = ok ? "True" : "False";
  nlohmann::json c = {{"type", type},
                      {"status", status},
                      {"reason", reason},
                      {"message", message},
                      {"observedGeneration",
                       object.value("metadata", nlohmann::json::object()).value("generation", 0)}};
  const nlohmann::json old = FindCondition(object, type);
  c["lastTransitionTime"] = old.is_object() && old.value("status", "") == status
                                ? old.value("lastTransitionTime", Rfc3339(now))
                                : Rfc3339(now);
  return c;
}

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_CONDITIONS_H_
