#include "src/controllers/postgrescluster/switchover.h"

#include <spdlog/spdlog.h>

#include "src/base/failpoint.h"
#include "src/base/logging.h"

namespace quorum::postgrescluster {

SwitchoverOutcome Switchover(const SwitchoverPlan& plan, const PostgresCluster& cluster,
                             const Members& members, patroni::RestClient& rest,
                             const patroni::BasicAuth& auth, runtime::EventRecorder& recorder,
                             const Json& stored) {
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
  Failpoint("postgrescluster/before-Switchover");
  const absl::Status s = type == "Failover" ? rest.Failover(members.urls.at(target), target, auth)
                                            : rest.Switchover(members.urls.at(members.primary),
                                                              members.primary, target, auth);
  if (s.ok()) Failpoint("postgrescluster/after-Switchover");
  record.result = s.ok() ? "Succeeded" : "Failed";
  record.message = s.ok() ? "Patroni accepted the " + type : std::string(s.message());
  if (s.ok()) {
    spdlog::info("switchover step: Patroni accepted the {}", type);
    recorder.Normal(
        stored, type,
        trigger + type + " from " + members.primary + (target.empty() ? "" : " to " + target));
  } else {
    spdlog::warn("switchover step failed: {}", std::string(s.message()));
    recorder.Warning(stored, type + "Failed", trigger + std::string(s.message()));
  }
  return {.record = std::move(record)};
}

}  // namespace quorum::postgrescluster
