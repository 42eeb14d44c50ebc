#include "src/controllers/postgrescluster/switchover.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/base/failpoint.h"
#include "src/base/logging.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

// The switchover trigger annotation when it is new (not yet handled), else "".
std::string NewSwitchoverTrigger(const PostgresCluster& cluster) {
  auto annotation =
      cluster.metadata.annotations.find(std::string(api::kSwitchoverTriggerAnnotation));
  const std::string trigger =
      annotation == cluster.metadata.annotations.end() ? "" : annotation->second;
  const auto& last = cluster.status.patroni.switchover;
  const std::string handled = last ? last->trigger : "";
  return trigger == handled ? "" : trigger;
}

std::string NotAMember(const PostgresCluster& cluster, const std::string& target) {
  if (target.empty()) return "";
  const std::vector<std::string> pods = MemberPodNames(cluster);
  if (std::find(pods.begin(), pods.end(), target) != pods.end()) return "";
  return absl::StrCat("spec.patroni.switchover.targetInstance: ", target,
                      " is not a member of this cluster (its members: ", absl::StrJoin(pods, ", "),
                      "); name one of them and annotate again");
}

std::string SwitchoverBlocker(const Members& members, const std::string& target) {
  auto ready_replica = [&](const std::string& pod) {
    auto it = members.roles.find(pod);
    if (it == members.roles.end() || !it->second.reachable) return false;
    const patroni::ObservedRole& r = it->second;
    return r.role == "replica" && (r.state == "running" || r.state == "streaming");
  };
  if (!target.empty()) {
    if (ready_replica(target)) return "";
    auto it = members.roles.find(target);
    const std::string seen = it == members.roles.end() || !it->second.reachable
                                 ? "not answering"
                                 : it->second.role + ", " + it->second.state;
    return "waiting for " + target + " to run as a replica (now: " + seen + ")";
  }
  for (const auto& [pod, role] : members.roles) {
    if (pod != members.primary && ready_replica(pod)) return "";
  }
  return "waiting for a member other than the primary to run as a replica";
}

std::optional<api::PostgresSwitchoverStatus> Switchover(const PostgresCluster& cluster,
                                                        const Members& members,
                                                        patroni::RestClient& rest,
                                                        const patroni::BasicAuth& auth,
                                                        runtime::EventRecorder& recorder,
                                                        const Json& stored, absl::Time now) {
  const std::string trigger = NewSwitchoverTrigger(cluster);
  if (trigger.empty()) return std::nullopt;
  const api::PostgresSwitchoverSpec& spec = cluster.spec.patroni.switchover;
  const std::string& type = spec.type;
  const std::string& target = spec.target_instance;
  api::PostgresSwitchoverStatus record{.trigger = trigger,
                                       .type = type,
                                       .from = members.primary,
                                       .to = target,
                                       .time = runtime::Rfc3339(now)};
  // Logged at info as well as evented, like the etcd membership steps.
  ScopedLogFields fields({{"trigger", trigger},
                          {"switchoverType", type},
                          {"from", members.primary},
                          {"to", target.empty() ? "(Patroni's choice)" : target}});
  absl::Status s;
  Failpoint("postgrescluster/before-Switchover");
  if (const std::string why = NotAMember(cluster, target); !why.empty()) {
    // A typo never waits: answered at once, and nothing else is held back.
    s = absl::InvalidArgumentError(why);
  } else if (!spec.enabled) {
    s = absl::FailedPreconditionError(
        "spec.patroni.switchover.enabled is false: set it to true, then annotate again");
  } else if (type == "Failover") {
    if (target.empty()) {
      s = absl::InvalidArgumentError("a Failover needs spec.patroni.switchover.targetInstance");
    } else if (auto it = members.urls.find(target); it == members.urls.end()) {
      s = absl::FailedPreconditionError("targetInstance " + target + " is not a running member");
    } else {
      s = rest.Failover(it->second, target, auth);
    }
  } else {
    if (members.primary.empty()) return std::nullopt;  // wait for a leader to move from
    if (target != members.primary) {
      if (const std::string blocker = SwitchoverBlocker(members, target); !blocker.empty()) {
        spdlog::info("switchover step waits: {}", blocker);
        recorder.Normal(stored, "SwitchoverWaiting", "trigger " + trigger + ": " + blocker);
        return std::nullopt;  // the member's pod changing (readiness) reconciles again
      }
    }
    if (target == members.primary) {
      record.result = "Succeeded";
      record.message = target + " is the primary already";
      spdlog::info("switchover step: {} is the primary already", target);
      recorder.Normal(stored, type,
                      "trigger " + trigger + ": " + target + " is the primary already");
      return record;
    }
    s = rest.Switchover(members.urls.at(members.primary), members.primary, target, auth);
  }
  if (s.ok()) Failpoint("postgrescluster/after-Switchover");
  record.result = s.ok() ? "Succeeded" : "Failed";
  record.message = s.ok() ? "Patroni accepted the " + type : std::string(s.message());
  if (s.ok()) {
    spdlog::info("switchover step: Patroni accepted the {}", type);
    recorder.Normal(stored, type,
                    "trigger " + trigger + ": " + type + " from " + members.primary +
                        (target.empty() ? "" : " to " + target));
  } else {
    spdlog::warn("switchover step failed: {}", std::string(s.message()));
    recorder.Warning(stored, type + "Failed",
                     "trigger " + trigger + ": " + std::string(s.message()));
  }
  return record;
}

}  // namespace quorum::postgrescluster
