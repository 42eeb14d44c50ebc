#include "src/controllers/etcdcluster/plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/controllers/etcdcluster/roll.h"
#include "src/controllers/etcdcluster/status.h"

namespace quorum::etcdcluster {
namespace {

bool AnyPodHasIp(const World& w) {
  return std::any_of(w.pods.begin(), w.pods.end(), [](const PodInfo& p) { return p.has_ip; });
}

// Steps that Kubernetes carries out come back as pod/StatefulSet events;
// etcd's own changes and health do not.
WaitFor WaitForAfter(const etcd::Action& action, const PlanInput& in) {
  switch (action.kind) {
    case etcd::Action::kNone:
      return WaitFor::kRefresh;
    case etcd::Action::kBootstrap:
    case etcd::Action::kScaleStatefulSet:
    case etcd::Action::kDeletePod:
    case etcd::Action::kRollPod:
    case etcd::Action::kReplaceMember:
      return WaitFor::kEvent;
    case etcd::Action::kWait:
      // A Secret to fix: a user's Secret is read through the API server, not
      // watched, so it is looked for again with capped backoff. Another access
      // error (the API server refused to create the root Secret) is retried.
      if (!in.access.ok()) {
        return absl::IsFailedPrecondition(in.access) ? WaitFor::kSecret : WaitFor::kEtcd;
      }
      // No pod can answer yet: the next change is a pod getting its IP.
      return !in.view.members_known && !AnyPodHasIp(in.world) ? WaitFor::kEvent : WaitFor::kEtcd;
    default:
      return WaitFor::kEtcd;
  }
}

// The ordinal whose pod runs member `m`, or -1.
int OrdinalOf(const PlanInput& in, const etcd::Member& m) {
  for (const PodInfo& p : in.world.pods) {
    if (p.ordinal < 0) continue;
    if ((!m.peer_urls.empty() && m.peer_urls.front() == in.topology.peer_url(p.ordinal)) ||
        (!m.name.empty() && m.name == in.topology.member_name(p.ordinal))) {
      return p.ordinal;
    }
  }
  return -1;
}

// The roll's view (roll.h): the pods, their revisions and their members.
RollInput RollInputFor(const PlanInput& in) {
  RollInput r{.empty_dir = in.empty_dir,
              .revision = in.world.update_revision,
              .leader_id = in.view.leader_id};
  std::map<int, RollOrdinal> by_ordinal;
  for (const PodInfo& p : in.world.pods) {
    if (p.ordinal < 0) continue;
    by_ordinal[p.ordinal] = {
        .ordinal = p.ordinal,
        .pod = p.name,
        .pod_uid = p.uid,
        .outdated = !in.world.update_revision.empty() && p.revision != in.world.update_revision,
        .pod_ready = p.ready,
        .deleting = p.deleting};
  }
  for (const MemberStatus& ms : in.view.members) {
    if (!ms.member.is_learner) ++r.voting_members;
    const int k = OrdinalOf(in, ms.member);
    if (ms.status.has_value() && ms.member.id == in.view.leader_id) {
      r.leader_raft_index = ms.status->raft_index;
    }
    auto it = by_ordinal.find(k);
    if (it == by_ordinal.end()) continue;
    RollOrdinal& o = it->second;
    o.member_id = ms.member.id;
    o.learner = ms.member.is_learner;
    if (ms.status.has_value()) {
      o.healthy = ms.status->leader != 0 && ms.status->errors.empty();
      o.applied_index = ms.status->raft_applied_index;
    }
  }
  for (auto& [k, o] : by_ordinal) r.ordinals.push_back(o);
  return r;
}

}  // namespace

std::string LeftoverClaimsProblem(const std::vector<std::string>& claims) {
  return absl::StrCat("PersistentVolumeClaim(s) ", absl::StrJoin(claims, ", "),
                      " predate this EtcdCluster: an earlier cluster of this name left them "
                      "(claims outlive their StatefulSet), and its data would start instead of a "
                      "new cluster or of spec.bootstrap.restore, waiting for members that are "
                      "gone. Delete them to start (kubectl delete pvc ",
                      absl::StrJoin(claims, " "),
                      "); to bring that data back, restore a snapshot of it with "
                      "spec.bootstrap.restore");
}

PlanInput PlanInputFor(const EtcdCluster& cluster, World world, EtcdView view,
                       absl::Status access) {
  std::map<int, std::string> recorded = RecordedStorageUids(cluster, view);
  return {.desired_replicas = DesiredReplicas(cluster),
          .empty_dir = cluster.spec.storage.empty_dir.has_value(),
          .initialized = StatusInitialized(cluster),
          .topology = TopologyOf(cluster),
          .world = std::move(world),
          .view = std::move(view),
          .recorded_uids = std::move(recorded),
          .access = std::move(access)};
}

BootstrapState StateFrom(const PlanInput& in) {
  BootstrapState state;
  if (in.view.members_known) {
    state.state = "existing";
    for (const MemberStatus& ms : in.view.members) {
      if (ms.member.peer_urls.empty()) continue;
      // Place the member by its peer URL.
      for (int k = 0; k <= in.desired_replicas + 9 && k < 1024; ++k) {
        if (ms.member.peer_urls.front() == in.topology.peer_url(k)) {
          state.members.emplace_back(in.topology.member_name(k), in.topology.peer_url(k));
          break;
        }
      }
    }
    return state;
  }
  if (in.world.state_configmap) state = *in.world.state_configmap;
  if (state.members.empty()) {
    state.members.emplace_back(in.topology.member_name(0), in.topology.peer_url(0));
  }
  return state;
}

Plan PlanStep(const PlanInput& in) {
  const World& w = in.world;
  // An emptyDir cluster with no pod left has no data anywhere: scaling it up
  // again bootstraps a new cluster instead of waiting for members that are gone.
  const bool bootstrapped =
      in.initialized && !(in.empty_dir && w.statefulset_replicas == 0 && w.pods.empty());
  const etcd::Observation obs =
      BuildObservation(in.topology, in.desired_replicas, w.statefulset_replicas, bootstrapped,
                       in.view, ObservePods(w.pods, w.storage_uids, in.recorded_uids));
  Plan plan{.statefulset_replicas = w.statefulset_replicas, .state = StateFrom(in)};
  if (!in.initialized && !w.leftover_claims.empty()) {
    plan.problem = LeftoverClaimsProblem(w.leftover_claims);
    plan.problem_reason = "LeftoverClaims";
    plan.action = {.kind = etcd::Action::kWait, .reason = plan.problem};
    plan.wait_for = WaitFor::kSecret;  // the user deletes them; claims are not watched
    return plan;
  }
  if (!in.access.ok()) plan.problem = std::string(in.access.message());
  plan.action = in.access.ok() ? etcd::NextAction(obs)
                               : etcd::Action{.kind = etcd::Action::kWait, .reason = plan.problem};
  // Membership first; a roll only when it has nothing to do (roll.h).
  if (plan.action.kind == etcd::Action::kNone && in.view.members_known) {
    plan.action = PlanRoll(RollInputFor(in));
  }
  if (plan.action.kind == etcd::Action::kBootstrap) {
    plan.statefulset_replicas = 1;
    plan.state = {.state = "new",
                  .members = {{in.topology.member_name(0), in.topology.peer_url(0)}}};
  } else if (plan.action.kind == etcd::Action::kScaleStatefulSet) {
    plan.statefulset_replicas = plan.action.replicas;
  }
  plan.wait_for = WaitForAfter(plan.action, in);
  for (const etcd::PodView& p : obs.pods) plan.ready_pods += p.ready ? 1 : 0;
  return plan;
}

}  // namespace quorum::etcdcluster
