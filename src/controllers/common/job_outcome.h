// What a finished Job says (pure): its Complete/Failed conditions and its
// pod's termination message, which the backup Jobs (EtcdBackup,
// PostgresBackup) use to report their result without API access; the Job
// object such a backup owns; and the conditions of those one-shot objects.
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

// The owner of a backup Job: the backup object (its controller).
struct JobOwner {
  std::string api_version, kind, name, uid;
};

// "<owner>-<suffix>"; longer than 63 characters (a Job name's and a label
// value's limit), the owner's name is cut and followed by 8 hex digits of its
// SHA-256: "<cut>-<hash>-<suffix>". Deterministic.
std::string OneShotJobName(const std::string& owner, const std::string& suffix);

// The pod spec of a backup Job: `container` run once (restartPolicy Never),
// with no API token and no service links, as user, group and fsGroup `uid`
// (non-root, RuntimeDefault seccomp), with `volumes`.
nlohmann::json OneShotPodSpec(const nlohmann::json& container, const nlohmann::json& volumes,
                              int64_t uid);
// A backup Job container's securityContext: no privilege escalation, a
// read-only root filesystem, every capability dropped.
nlohmann::json RestrictedContainerSecurity();

// A Job that runs `pod_spec` once (backoffLimit 0: a failure is final) for
// at most `deadline_seconds`, labelled `labels` (its pods too), owned by
// `owner`.
nlohmann::json BuildOneShotJob(const std::string& name, const std::string& ns,
                               const nlohmann::json& labels, const JobOwner& owner,
                               int deadline_seconds, const nlohmann::json& pod_spec);

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
