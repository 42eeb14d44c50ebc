#include "src/controllers/postgrescluster/remove_members.h"

#include <spdlog/spdlog.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/failpoint.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/crash_loop.h"
#include "src/controllers/postgrescluster/major_upgrade.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/roll_members.h"
#include "src/controllers/postgrescluster/switchover.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

std::optional<int> Replicas(const ObjectPtr& sts) {
  if (sts == nullptr) return std::nullopt;
  return controllers::StatefulSetReplicas(*sts, 1);  // 1: the API server's default
}

}  // namespace

std::vector<SetScale> ObserveSets(const Phase& p) {
  std::vector<SetScale> out;
  std::set<std::string> named;
  for (const api::PostgresInstanceSet& set : p.cluster.spec.instances) {
    const std::string name = StatefulSetName(p.cluster, set.name);
    named.insert(name);
    out.push_back({.statefulset = name,
                   .desired = static_cast<int>(set.replicas),
                   .current = Replicas(p.cache.Get(kStatefulSets, p.n.ns, name))});
  }
  for (const ObjectPtr& sts : p.cache.ByInstance(kStatefulSets, p.n.ns, p.n.cluster)) {
    const Json& labels = At(*sts, {"metadata", "labels"});
    const std::string name = Str(At(*sts, {"metadata", "name"}));
    if (Str(At(labels, {std::string(api::kClusterLabel).c_str()})) != p.n.cluster ||
        Str(At(labels, {std::string(api::kInstanceSetLabel).c_str()})).empty() ||
        named.contains(name) || controllers::BeingDeleted(*sts)) {
      continue;
    }
    out.push_back({.statefulset = name, .desired = 0, .current = Replicas(sts), .removed = true});
  }
  return out;
}

MemberObservation ObserveMemberChanges(const Phase& p, const DcsResolution& dcs,
                                       const std::vector<ObjectPtr>& pods, const Members& members) {
  return {.sets = ObserveSets(p),
          .pods = MemberPods(p.cluster, p.cache, pods, members),
          .desired = DesiredMembers(p.cluster),
          .lock_release = dcs.ready ? PlanLockRelease(pods, members) : std::nullopt,
          .user_switchover_acts = SwitchoverActsNow(p.cluster, members, p.now),
          .upgrade_underway = UpgradeUnderway(p.cluster)};
}

absl::Status RemoveMembers(const Phase& p, const MembershipPlan& plan, const Members& members,
                           patroni::RestClient& rest) {
  if (!plan.waiting.empty()) p.recorder.Normal(p.stored, "MemberRemovalWaiting", plan.waiting);
  if (plan.switchover.has_value()) {
    auto url = members.urls.find(plan.switchover->from);
    absl::Status s =
        url == members.urls.end()
            ? absl::UnavailableError("its REST API has no address")
            : rest.Switchover(url->second, plan.switchover->from, plan.switchover->to, p.rest_auth);
    if (s.ok()) {
      spdlog::info("member removal: {}", plan.step);
      p.recorder.Normal(p.stored, "MemberRemovalSwitchover", plan.step);
    } else {
      spdlog::warn("member removal: {}: {}", plan.step, std::string(s.message()));
      p.recorder.Warning(p.stored, "MemberRemovalSwitchoverFailed",
                         plan.step + ": " + std::string(s.message()));
    }
    return absl::OkStatus();  // the roles' change (or the backoff) comes back
  }
  for (const std::string& name : plan.delete_sets) {
    Failpoint("postgrescluster/before-DeleteInstanceSet");
    absl::Status s = p.client.Delete(kStatefulSets, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
    p.recorder.Normal(p.stored, "InstanceSetRemoved",
                      absl::StrCat("deleted StatefulSet ", name,
                                   " of an instance set no longer in spec.instances; its "
                                   "claims are kept"));
  }
  if (!plan.step.empty() && plan.delete_sets.empty()) {
    spdlog::info("member removal: {}", plan.step);
    p.recorder.Normal(p.stored, "ScalingDown", plan.step);
  }
  return absl::OkStatus();
}

}  // namespace quorum::postgrescluster
