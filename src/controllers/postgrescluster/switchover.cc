#include "src/controllers/postgrescluster/switchover.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "src/base/failpoint.h"
#include "src/base/logging.h"

namespace quorum::postgrescluster {
namespace {

struct PoolerStep {
  bool paused = false;
  absl::Time since;
  std::string note;  // for the record and the event
};

// PAUSE before the switchover; a pooler that cannot pause in time is
// resumed (by Pause) and the switchover goes on.
PoolerStep PausePooler(PoolerPause* pooler) {
  if (pooler == nullptr) return {};
  PoolerStep step{.since = absl::Now()};
  const absl::Status s = pooler->Pause(step.since + kPoolerPauseWait);
  step.paused = s.ok();
  if (s.ok()) {
    spdlog::info("pooler paused for the switchover in {}",
                 absl::FormatDuration(absl::Now() - step.since));
  } else {
    step.note = absl::StrCat("the pooler was not paused (", s.message(), ")");
    spdlog::warn("switchover goes on without pausing the pooler: {}", std::string(s.message()));
  }
  return step;
}

// RESUME once Patroni answered. False: a pod could not be reached.
bool ResumePooler(PoolerPause* pooler, PoolerStep& step) {
  if (pooler == nullptr || !step.paused) return true;
  const absl::Status s = pooler->Resume();
  const absl::Duration held = absl::Trunc(absl::Now() - step.since, absl::Milliseconds(100));
  step.note = absl::StrCat("the pooler held new transactions for ", absl::FormatDuration(held));
  if (s.ok()) {
    spdlog::info("pooler resumed after {}", absl::FormatDuration(held));
    return true;
  }
  step.note += absl::StrCat(" and could not be resumed everywhere (", s.message(),
                            "; retried at the next reconcile)");
  spdlog::warn("resuming the pooler: {}", std::string(s.message()));
  return false;
}

}  // namespace

SwitchoverOutcome Switchover(const SwitchoverPlan& plan, const PostgresCluster& cluster,
                             const Members& members, patroni::RestClient& rest,
                             const patroni::BasicAuth& auth, runtime::EventRecorder& recorder,
                             const Json& stored, PoolerPause* pooler) {
  if (plan.kind == SwitchoverPlan::kNone || plan.kind == SwitchoverPlan::kHold) return {};
  api::PostgresSwitchoverStatus record = plan.record;
  const std::string& type = record.type;
  const std::string& target = record.to;
  const std::string trigger = "trigger " + record.trigger + ": ";
  // Logged at info as well as evented, like the etcd membership steps.
  ScopedLogFields fields({{"trigger", record.trigger},
                          {"switchoverType", type},
                          {"from", members.primary},
                          {"to", target.empty() ? "(Patroni's choice)" : target}});
  if (plan.kind == SwitchoverPlan::kWait) {
    if (cluster.status.patroni.switchover != record) {  // said once per change
      spdlog::info("switchover step waits: {}", record.message);
      recorder.Normal(stored, "SwitchoverWaiting", trigger + record.message);
    }
    return {.record = std::move(record), .recheck_after = plan.recheck_after};
  }
  if (plan.kind == SwitchoverPlan::kAnswer) {
    // Answered without asking Patroni: nothing else is held back.
    if (record.result == "Succeeded") {
      spdlog::info("switchover step: {}", record.message);
      recorder.Normal(stored, type, trigger + record.message);
    } else {
      spdlog::warn("switchover step failed: {}", record.message);
      recorder.Warning(stored, type + "Failed", trigger + record.message);
    }
    return {.record = std::move(record)};
  }
  PoolerPause* pause = type == "Failover" ? nullptr : pooler;
  PoolerStep pooled = PausePooler(pause);
  Failpoint("postgrescluster/before-Switchover");
  const absl::Status s = type == "Failover" ? rest.Failover(members.urls.at(target), target, auth)
                                            : rest.Switchover(members.urls.at(members.primary),
                                                              members.primary, target, auth);
  if (s.ok()) Failpoint("postgrescluster/after-Switchover");
  const bool left_paused = !ResumePooler(pause, pooled);
  record.result = s.ok() ? "Succeeded" : "Failed";
  record.message = s.ok() ? "Patroni accepted the " + type : std::string(s.message());
  if (pause != nullptr) record.message += "; " + pooled.note;
  if (s.ok()) {
    spdlog::info("switchover step: Patroni accepted the {}", type);
    recorder.Normal(stored, type,
                    trigger + type + " from " + members.primary +
                        (target.empty() ? "" : " to " + target) +
                        (pause == nullptr ? "" : "; " + pooled.note));
  } else {
    spdlog::warn("switchover step failed: {}", std::string(s.message()));
    recorder.Warning(stored, type + "Failed", trigger + record.message);
  }
  return {.record = std::move(record), .pooler_left_paused = left_paused};
}

}  // namespace quorum::postgrescluster
