// Act phase of the EtcdCluster reconciler: each function does one kind of
// side effect and returns a Status with a code (never a sentence to match).
//
//   ActOnEtcd         the membership step on etcd (add learner, promote,
//                     move leader, remove member); other steps are no-ops
//   DeleteMemberPod   the kDeletePod step: the pod and its data volume
//   RollMemberPod     the roll steps' pod deletion (roll.h)
//   ApplyOwnedObjects the Services, state ConfigMap, StatefulSet, PDB and
//                     NetworkPolicy for the plan, each applied only when it
//                     differs from the cache; the policy deleted when turned off
//   WriteStatus       the status, only when it differs from the stored one
//
// Thread-safety: safe for different clusters concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACT_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACT_H_

#include "absl/status/status.h"
#include "api/etcdcluster_types.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/operator_peer.h"
#include "src/controllers/etcdcluster/plan.h"
#include "src/etcd/client.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"

namespace quorum::etcdcluster {

// Unavailable while etcd refuses reconfiguration (for ~5 s after a member
// joined or left); FailedPrecondition with etcd::IsLearnerNotReady while a
// learner catches up. `client` may be null only for steps that need no etcd.
absl::Status ActOnEtcd(etcd::Client* client, const etcd::Action& action);

// True for the failures above that only mean "etcd is still settling after
// the last step": the reconciler waits and asks again, it does not fail.
bool IsSettling(const absl::Status& step);

absl::Status DeleteMemberPod(kube::Client& client, const EtcdCluster& cluster, int ordinal);

// The kRollPod step, and kReplaceMember's second half: deletes the pod of
// `action.ordinal` if it is still the one observed (`action.pod_uid`), so the
// StatefulSet (OnDelete) makes it again from its current template.
absl::Status RollMemberPod(kube::Client& client, const EtcdCluster& cluster,
                           const etcd::Action& action);

// The bootstrap state to apply after the step: with a learner just added,
// new pods must be told about it.
BootstrapState StateAfterStep(const EtcdCluster& cluster, const Plan& plan, bool step_done);

// The StatefulSet goes through controllers::PrepareStatefulSet (a changed
// claim template never fails the apply); `claims` (optional) receives its outcome.
// `operator_image`: of the restore init containers (restore.h);
// `operator_peer`: the operator's pods, which the NetworkPolicy admits
// (network_policy.h; its PostgresCluster clients come from the cache's
// kPostgresClientIndex). An object the API server refuses
// (runtime::IsRefusedWrite) is named in the error's message.
absl::Status ApplyOwnedObjects(kube::Client& client, const runtime::Cache& cache,
                               const EtcdCluster& cluster, const Plan& plan, bool step_done,
                               controllers::ClaimTemplateOutcome* claims = nullptr,
                               const std::string& operator_image = "",
                               const controllers::OperatorPeer& operator_peer = {});

// Applies `status` when it differs from cluster.status; NotFound (the
// cluster went away) is not an error.
absl::Status WriteStatus(kube::Client& client, const EtcdCluster& cluster,
                         const api::EtcdClusterStatus& status);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACT_H_
