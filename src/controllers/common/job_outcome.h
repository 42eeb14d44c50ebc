// What a finished Job says (pure): its Complete/Failed conditions and its
// pod's termination message, which the backup Jobs (EtcdBackup,
// PostgresBackup) use to report their result without API access; and the
// conditions of those one-shot backup objects.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdcluster_types.h"

namespace quorum::controllers {

struct JobOutcome {
  bool complete = false;
  bool failed = false;
  std::string message;  // the container's termination message, else the Job's condition message
};

// Reads the Job's Complete/Failed conditions and the termination message of
// its pods (the items of a pod list, or an array of pods, any order; the last
// terminated wins).
JobOutcome OutcomeOf(const nlohmann::json& job, const nlohmann::json& pods);

// Appends condition `type` to `status.conditions`, keeping its transition
// time from `old` while its status holds. `Status`: EtcdBackupStatus,
// PostgresBackupStatus.
template <typename Status>
void AppendBackupCondition(Status& status, const Status& old, const std::string& type, bool value,
                           const std::string& reason, const std::string& message,
                           int64_t generation, const std::string& now) {
  api::Condition c{.type = type,
                   .status = value ? "True" : "False",
                   .reason = reason,
                   .message = message,
                   .observed_generation = generation,
                   .last_transition_time = now};
  for (const api::Condition& prev : old.conditions) {
    if (prev.type == type && prev.status == c.status) {
      c.last_transition_time = prev.last_transition_time;
    }
  }
  status.conditions.push_back(std::move(c));
}

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_
