#include "src/controllers/postgrescluster/switchover_plan.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {
namespace {

constexpr char kWhyStreaming[] =
    "a switchover to a member that does not stream could lose acknowledged writes";

// Whether the switchover's candidate (`target`, or without one any member)
// streams from the primary now, and if not what the target was doing.
struct Streaming {
  bool streams = false;
  std::string seen;  // " (now: replica, running)"; "" without a target
};

Streaming StreamsNow(const Members& members, const std::string& target) {
  auto primary = members.roles.find(members.primary);
  const std::vector<std::string> streaming =
      primary == members.roles.end() ? std::vector<std::string>{} : primary->second.streaming_to;
  if (target.empty()) return {.streams = !streaming.empty()};
  if (std::find(streaming.begin(), streaming.end(), target) != streaming.end()) {
    return {.streams = true};
  }
  auto it = members.roles.find(target);
  return {.seen = it == members.roles.end() || !it->second.reachable
                      ? " (now: not answering)"
                      : " (now: " + it->second.role + ", " + it->second.state + ")"};
}

// When this trigger began to wait: its Waiting record's time, else `now`.
absl::Time WaitingSince(const PostgresCluster& cluster, const std::string& trigger,
                        absl::Time now) {
  const auto& last = cluster.status.patroni.switchover;
  if (!last || last->trigger != trigger || last->result != kSwitchoverWaiting) return now;
  absl::Time since;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, last->time, &since, &err) || since > now) return now;
  return since;
}

SwitchoverPlan Answer(api::PostgresSwitchoverStatus record, const std::string& result,
                      const std::string& message) {
  record.result = result;
  record.message = message;
  return {.kind = SwitchoverPlan::kAnswer, .record = std::move(record)};
}

// A Switchover with a primary to move from, to a target that is not it.
SwitchoverPlan PlanMove(const PostgresCluster& cluster, const Members& members,
                        api::PostgresSwitchoverStatus record, absl::Time now) {
  const Streaming streaming = StreamsNow(members, record.to);
  if (streaming.streams) return {.kind = SwitchoverPlan::kAct, .record = std::move(record)};
  const absl::Time since = WaitingSince(cluster, record.trigger, now);
  const absl::Duration waited = now - since;
  const std::string bound = absl::FormatDuration(kSwitchoverStreamWait);
  const std::string primary = "the primary " + members.primary;
  if (waited >= kSwitchoverStreamWait) {
    const std::string message =
        record.to.empty()
            ? absl::StrCat("not attempted: no replica streamed from ", primary, " within ", bound,
                           "; ", kWhyStreaming, "; annotate again once one streams")
            : absl::StrCat("not attempted: ", record.to, " did not stream from ", primary,
                           " within ", bound, streaming.seen, "; ", kWhyStreaming,
                           "; annotate again once it streams");
    return Answer(std::move(record), "Failed", message);
  }
  record.time = runtime::Rfc3339(since);
  record.result = std::string(kSwitchoverWaiting);
  record.message =
      absl::StrCat("waiting up to ", bound, " for ", record.to.empty() ? "a replica" : record.to,
                   " to stream from ", primary, streaming.seen, "; ", kWhyStreaming);
  return {.kind = SwitchoverPlan::kWait,
          .record = std::move(record),
          .recheck_after = kSwitchoverStreamWait - waited};
}

}  // namespace

std::string NewSwitchoverTrigger(const PostgresCluster& cluster) {
  auto annotation =
      cluster.metadata.annotations.find(std::string(api::kSwitchoverTriggerAnnotation));
  const std::string trigger =
      annotation == cluster.metadata.annotations.end() ? "" : annotation->second;
  const auto& last = cluster.status.patroni.switchover;
  const bool handled = last && last->trigger == trigger && last->result != kSwitchoverWaiting;
  return handled ? "" : trigger;
}

std::string NotAMember(const PostgresCluster& cluster, const std::string& target) {
  if (target.empty()) return "";
  const std::vector<std::string> pods = MemberPodNames(cluster);
  if (std::find(pods.begin(), pods.end(), target) != pods.end()) return "";
  return absl::StrCat("spec.patroni.switchover.targetInstance: ", target,
                      " is not a member of this cluster (its members: ", absl::StrJoin(pods, ", "),
                      "); name one of them and annotate again");
}

SwitchoverPlan PlanSwitchover(const PostgresCluster& cluster, const Members& members,
                              absl::Time now) {
  const std::string trigger = NewSwitchoverTrigger(cluster);
  if (trigger.empty()) return {};
  const api::PostgresSwitchoverSpec& spec = cluster.spec.patroni.switchover;
  const std::string& target = spec.target_instance;
  api::PostgresSwitchoverStatus record{.trigger = trigger,
                                       .type = spec.type,
                                       .from = members.primary,
                                       .to = target,
                                       .time = runtime::Rfc3339(now)};
  if (const std::string why = NotAMember(cluster, target); !why.empty()) {
    return Answer(std::move(record), "Failed", why);  // a typo never waits
  }
  if (!spec.enabled) {
    return Answer(std::move(record), "Failed",
                  "spec.patroni.switchover.enabled is false: set it to true, then annotate again");
  }
  if (spec.type == "Failover") {  // no primary to stream from: the user's call
    if (target.empty()) {
      return Answer(std::move(record), "Failed",
                    "a Failover needs spec.patroni.switchover.targetInstance");
    }
    if (!members.urls.contains(target)) {
      return Answer(std::move(record), "Failed",
                    "targetInstance " + target + " is not a running member");
    }
    return {.kind = SwitchoverPlan::kAct, .record = std::move(record)};
  }
  if (members.primary.empty()) return {.kind = SwitchoverPlan::kHold};
  if (target == members.primary) {
    return Answer(std::move(record), "Succeeded", target + " is the primary already");
  }
  return PlanMove(cluster, members, std::move(record), now);
}

bool SwitchoverActsNow(const PostgresCluster& cluster, const Members& members, absl::Time now) {
  return PlanSwitchover(cluster, members, now).kind == SwitchoverPlan::kAct;
}

}  // namespace quorum::postgrescluster
