// What a finished Job says (pure): its Complete/Failed conditions and its
// pod's termination message, which the backup Jobs (EtcdBackup,
// PostgresBackup) use to report their result without API access.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_

#include <nlohmann/json.hpp>
#include <string>

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

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_JOB_OUTCOME_H_
