// The lifecycle of a one-shot backup object (EtcdBackup, PostgresBackup),
// shared by both kinds (pure): from the backup's old status, its Job's
// outcome and how long it has waited, to the phase, the Complete/Failed
// conditions and whether to create the Job. What differs between the kinds
// comes in a BackupPhaseKind: why the cluster is not ready for a backup yet,
// the messages and reasons, and how the finished Job's report is read into
// the kind's own status field.
//
// The phases: Pending (the kind gives a reason to wait), Started (the Job is
// created or runs), Complete (the Job succeeded and its report reads),
// Failed (the Job failed, its report does not read, or it could not start
// within api::kBackupStartTimeout of the backup's creation). Complete and
// Failed are final: the status is kept as it is, so a finished backup costs
// no write.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_PHASE_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_PHASE_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "api/backup_phase.h"
#include "src/controllers/common/job_outcome.h"

namespace quorum::controllers {

// Why a backup's Job cannot be created yet; an empty reason: it can.
struct BackupWait {
  std::string reason, message;
};

// What reading a succeeded Job's report gave: `readable` and the Complete
// message, or not and the Failed (ResultUnreadable) message.
struct BackupReport {
  bool readable = false;
  std::string message;
};

// The kind's answers. `Status`: api::EtcdBackupStatus, api::PostgresBackupStatus.
template <typename Status>
struct BackupPhaseKind {
  std::string job_name;  // the Job's deterministic name
  BackupWait wait;       // read only while there is no Job
  // The Started condition's message when the Job is created, and while it runs.
  std::string created_message, running_message;
  // The reasons of a Job that succeeded (its report read) or failed, and
  // how much of a failed Job's message the Failed condition keeps.
  std::string complete_reason, failed_reason;
  size_t failed_message_limit = 1024;
  // Reads the report (the Job's termination message) into the kind's field
  // of `status`.
  std::function<BackupReport(const std::string& report, Status& status)> read_report;
};

struct BackupMoment {
  std::string now;     // RFC 3339, for condition transitions
  absl::Duration age;  // since the backup's creation
};

template <typename Status>
struct BackupPhasePlan {
  bool create_job = false;
  Status status;
  // Pending: look again then (the start timeout), whatever the watches say.
  std::optional<absl::Duration> recheck_after;
};

inline bool IsFinalBackupPhase(const std::string& phase) {
  return phase == api::kBackupComplete || phase == api::kBackupFailed;
}

// The next status of a backup whose status is `old` at `generation`.
template <typename Status>
BackupPhasePlan<Status> PlanBackupPhase(const Status& old, int64_t generation,
                                        const std::optional<JobOutcome>& job,
                                        const BackupMoment& at, const BackupPhaseKind<Status>& k) {
  BackupPhasePlan<Status> plan;
  if (IsFinalBackupPhase(old.phase)) {
    plan.status = old;
    return plan;
  }
  Status& s = plan.status;
  s.observed_generation = generation;
  s.job_name = job.has_value() ? k.job_name : old.job_name;
  auto set = [&](std::string_view phase, bool complete, bool failed, const std::string& reason,
                 const std::string& message) {
    s.phase = std::string(phase);
    AppendBackupCondition(s, old, "Complete", complete, reason, message, generation, at.now);
    AppendBackupCondition(s, old, "Failed", failed, reason, message, generation, at.now);
  };
  if (!job.has_value()) {
    if (!k.wait.reason.empty() && at.age >= api::kBackupStartTimeout) {
      set(api::kBackupFailed, false, true, "StartTimeout",
          absl::StrCat("not started within ", absl::FormatDuration(api::kBackupStartTimeout), ": ",
                       k.wait.message));
    } else if (!k.wait.reason.empty()) {
      set(api::kBackupPending, false, false, k.wait.reason, k.wait.message);
      plan.recheck_after = api::kBackupStartTimeout - at.age;
    } else {
      plan.create_job = true;
      s.job_name = k.job_name;
      set(api::kBackupStarted, false, false, "JobCreated", k.created_message);
    }
  } else if (job->complete) {
    const BackupReport report = k.read_report(job->message, s);
    if (report.readable) {
      set(api::kBackupComplete, true, false, k.complete_reason, report.message);
    } else {
      set(api::kBackupFailed, false, true, "ResultUnreadable", report.message);
    }
  } else if (job->failed) {
    set(api::kBackupFailed, false, true, k.failed_reason,
        job->message.empty() ? "the Job failed" : job->message.substr(0, k.failed_message_limit));
  } else {
    set(api::kBackupStarted, false, false, "JobRunning", k.running_message);
  }
  return plan;
}

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_BACKUP_PHASE_H_
