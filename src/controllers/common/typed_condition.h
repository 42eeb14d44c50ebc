// A typed status condition for an EtcdCluster or a PostgresCluster (any
// object with `metadata.generation` and `status` that api::FindCondition
// reads): the condition at `now`, keeping the old transition time while its
// status stays the same. Pure.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_TYPED_CONDITION_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_TYPED_CONDITION_H_

#include <string>

#include "absl/time/time.h"
#include "api/etcdcluster_types.h"
#include "src/runtime/conditions.h"

namespace quorum::controllers {

// The condition with status "True", "False" or "Unknown".
template <typename Object>
api::Condition MakeConditionStatus(const Object& object, const std::string& type,
                                   const std::string& status, const std::string& reason,
                                   const std::string& message, absl::Time now) {
  api::Condition c{.type = type,
                   .status = status,
                   .reason = reason,
                   .message = message,
                   .observed_generation = object.metadata.generation,
                   .last_transition_time = runtime::Rfc3339(now)};
  const api::Condition* old = api::FindCondition(object.status, type);
  if (old != nullptr && old->status == c.status && !old->last_transition_time.empty()) {
    c.last_transition_time = old->last_transition_time;
  }
  return c;
}

template <typename Object>
api::Condition MakeCondition(const Object& object, const std::string& type, bool ok,
                             const std::string& reason, const std::string& message,
                             absl::Time now) {
  return MakeConditionStatus(object, type, ok ? "True" : "False", reason, message, now);
}

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_TYPED_CONDITION_H_
