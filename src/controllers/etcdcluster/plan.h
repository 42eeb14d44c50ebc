// Plan phase of the EtcdCluster reconciler: pure, from what was observed to
// the single next step and the objects that go with it. Wraps the membership
// planner (src/etcd/planner.h) with what it does not know: the bootstrap
// state new pods are told, the StatefulSet size for this step, a
// configuration problem that blocks talking to etcd, and what the reconciler
// waits for afterwards (a watch event, or time).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_PLAN_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_PLAN_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "src/controllers/etcdcluster/observe.h"
#include "src/etcd/planner.h"

namespace quorum::etcdcluster {

struct PlanInput {
  int desired_replicas = 0;
  bool empty_dir = false;    // spec.storage.emptyDir: data goes with the pod
  bool initialized = false;  // status says the first quorum formed
  Topology topology;
  World world;
  EtcdView view;
  std::map<int, std::string> recorded_uids;  // status.members[].dataUID by ordinal
  // OK, or why etcd cannot be reached (FailedPrecondition: a Secret is
  // missing, the client certificate is unusable).
  absl::Status access;
};

// The production input for `cluster`.
PlanInput PlanInputFor(const EtcdCluster& cluster, World world, EtcdView view, absl::Status access);

// What the reconciler waits for after this step.
enum class WaitFor {
  kEvent,   // a pod or StatefulSet change: the watches requeue the cluster
  kSecret,  // a Secret to fix: the user's Secrets are not watched, look again
            // after a backoff capped at kMaxSecretWait
  kEtcd,    // something only etcd shows (member health, a learner catching
            // up): look again after a capped backoff
  kRefresh  // converged: refresh member health now and then
};

struct Plan {
  etcd::Action action;
  int statefulset_replicas = 0;  // to apply with this step
  BootstrapState state;          // the state ConfigMap to apply with this step
  WaitFor wait_for = WaitFor::kEvent;
  std::string problem;  // the access problem's message, "" when none
  // "LeftoverClaims" when problem is about an earlier cluster's claims (the
  // reconciler events it), "" otherwise.
  std::string problem_reason;
  int ready_pods = 0;
};

// Before the first quorum, claims an earlier EtcdCluster of this name left
// (World::leftover_claims) hold the cluster back with the StatefulSet at its
// current size (0 for a new one): etcd would start from that cluster's data
// and wait for its members, and bootstrap.restore would skip the existing
// data. The problem names the claims to delete; the wait looks again with
// backoff (claims are not watched).
Plan PlanStep(const PlanInput& in);

// The sentence for leftover claims `claims`.
std::string LeftoverClaimsProblem(const std::vector<std::string>& claims);

// The bootstrap state from etcd's member list when it answered, else from
// the ConfigMap as last applied, else {new, [member 0]}.
BootstrapState StateFrom(const PlanInput& in);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_PLAN_H_
