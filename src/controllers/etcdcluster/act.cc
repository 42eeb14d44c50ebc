#include "src/controllers/etcdcluster/act.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/etcdcluster/adopt.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/controllers/etcdcluster/network_policy.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/etcd/errors.h"
#include "src/runtime/apply.h"

namespace quorum::etcdcluster {
namespace {

// The PostgresClusters of the namespace whose clusterRef names `cluster`.
std::vector<std::string> PostgresClients(const runtime::Cache& cache, const EtcdCluster& cluster) {
  std::vector<std::string> names;
  for (const runtime::ObjectPtr& pg :
       cache.ByIndex(kPostgresClusters, kPostgresClientIndex,
                     cluster.metadata.ns + "/" + cluster.metadata.name)) {
    names.push_back(json_access::Str(json_access::At(*pg, {"metadata", "name"})));
  }
  return names;
}

// An object the spec no longer asks for (spec.networkPolicy.enabled turned
// off, spec.podDisruptionBudgetTemplate removed) goes, if it is this
// cluster's (not another resource's of the same name).
absl::Status DeleteUnwanted(kube::Client& client, const runtime::Cache& cache,
                            const EtcdCluster& cluster, const kube::GroupVersionResource& gvr,
                            const std::string& name) {
  runtime::ObjectPtr cached = cache.Get(gvr, cluster.metadata.ns, name);
  if (cached == nullptr || controllers::BeingDeleted(*cached)) {
    return absl::OkStatus();
  }
  bool ours = false;
  for (const Json& ref : (*cached)["metadata"].value("ownerReferences", Json::array())) {
    ours |= ref.value("uid", "") == cluster.metadata.uid;
  }
  if (!ours) return absl::OkStatus();
  absl::Status s = client.Delete(gvr, cluster.metadata.ns, name);
  return absl::IsNotFound(s) ? absl::OkStatus() : s;
}

}  // namespace

absl::Status ActOnEtcd(etcd::Client* client, const etcd::Action& action) {
  switch (action.kind) {
    case etcd::Action::kAddLearner:
    case etcd::Action::kPromote:
    case etcd::Action::kMoveLeader:
    case etcd::Action::kRemoveMember:
    case etcd::Action::kReplaceMember:
      if (client == nullptr) return absl::FailedPreconditionError("no etcd client");
      break;
    default:
      return absl::OkStatus();
  }
  switch (action.kind) {
    case etcd::Action::kAddLearner:
      return client->MemberAdd({action.peer_url}, /*is_learner=*/true).status();
    case etcd::Action::kPromote:
      return client->MemberPromote(action.member_id);
    case etcd::Action::kMoveLeader:
      return client->MoveLeader(action.member_id);
    default:
      return client->MemberRemove(action.member_id);
  }
}

absl::Status RollMemberPod(kube::Client& client, const EtcdCluster& cluster,
                           const etcd::Action& action) {
  // Only the pod observed: one the StatefulSet already replaced (a stale
  // cache) is left alone.
  absl::Status s = client.Delete(kPods, cluster.metadata.ns, MemberName(cluster, action.ordinal),
                                 {.precondition_uid = action.pod_uid});
  // NotFound: gone already; Aborted (409, the UID precondition): replaced.
  return absl::IsNotFound(s) || absl::IsAborted(s) ? absl::OkStatus() : s;
}

bool IsSettling(const absl::Status& step) {
  return absl::IsUnavailable(step) || etcd::IsLearnerNotReady(step);
}

absl::Status DeleteMemberPod(kube::Client& client, const EtcdCluster& cluster, int ordinal) {
  // The pod's old data (an earlier failed start wrote the removed member's
  // ID there) must go with it, or the member never rejoins.
  const std::string pod = MemberName(cluster, ordinal);
  const std::string& ns = cluster.metadata.ns;
  absl::Status s = absl::OkStatus();
  if (!cluster.spec.storage.empty_dir) {
    s = client.Delete(kPvcs, ns, std::string(kDataVolume) + "-" + pod);
    if (absl::IsNotFound(s)) s = absl::OkStatus();
  }
  if (s.ok()) s = client.Delete(kPods, ns, pod);
  return absl::IsNotFound(s) ? absl::OkStatus() : s;
}

BootstrapState StateAfterStep(const EtcdCluster& cluster, const Plan& plan, bool step_done) {
  BootstrapState state = plan.state;
  if (plan.action.kind == etcd::Action::kAddLearner && step_done) {
    state.state = "existing";
    state.members.emplace_back(MemberName(cluster, plan.action.ordinal), plan.action.peer_url);
  }
  return state;
}

namespace {

// A StatefulSet made by an earlier version or another operator rolls by
// itself (RollingUpdate, with the API server's default rollingUpdate
// {partition: 0} that no field manager owns, so an apply of OnDelete alone is
// refused: "only allowed for updateStrategy 'RollingUpdate'"). One merge
// patch drops it and switches to OnDelete; no pod restarts for it.
absl::Status SwitchToOnDelete(kube::Client& client, const std::string& ns, const std::string& name,
                              const Json& live) {
  if (controllers::StatefulSetUpdateStrategy(live) == "OnDelete") return absl::OkStatus();
  const Json patch = {
      {"spec", {{"updateStrategy", {{"type", "OnDelete"}, {"rollingUpdate", nullptr}}}}}};
  absl::StatusOr<Json> patched =
      client.Patch(kStatefulSets, ns, name, kube::PatchType::kMerge, patch);
  return patched.ok() || absl::IsNotFound(patched.status()) ? absl::OkStatus() : patched.status();
}

}  // namespace

absl::Status ApplyOwnedObjects(kube::Client& client, const runtime::Cache& cache,
                               const EtcdCluster& cluster, const Plan& plan, bool step_done,
                               controllers::ClaimTemplateOutcome* claims,
                               const std::string& operator_image,
                               const controllers::OperatorPeer& operator_peer) {
  // The state before the StatefulSet, so a new pod never starts with an old
  // member list.
  std::vector<std::pair<kube::GroupVersionResource, Json>> desired = {
      {kServices, BuildHeadlessService(cluster)},
      {kServices, BuildClientService(cluster)},
      {kConfigMaps, BuildStateConfigMap(cluster, StateAfterStep(cluster, plan, step_done))},
      {kStatefulSets, BuildStatefulSet(cluster, plan.statefulset_replicas, operator_image)}};
  const int voting = std::max(1, DesiredReplicas(cluster));
  const std::optional<Json> pdb = BuildPodDisruptionBudget(cluster, voting);
  if (pdb.has_value()) desired.emplace_back(kPdbs, *pdb);
  const std::optional<Json> policy =
      BuildNetworkPolicy(cluster, operator_peer, PostgresClients(cache, cluster));
  if (policy.has_value()) desired.emplace_back(kNetworkPolicies, *policy);
  for (auto& [gvr, obj] : desired) {
    const std::string name = json_access::Str(json_access::At(obj, {"metadata", "name"}));
    runtime::ObjectPtr cached = cache.Get(gvr, cluster.metadata.ns, name);
    if (gvr == kStatefulSets && cached == nullptr) {
      // Not in the cache: not made yet, or made by another operator without
      // Quorum's label (aenix's carries none). Its immutable fields matter.
      absl::StatusOr<Json> live = client.Get(gvr, cluster.metadata.ns, name);
      if (!live.ok() && !absl::IsNotFound(live.status())) return live.status();
      if (live.ok() && !MayAdopt(*live, cluster)) {
        // Refused like a write the API server refuses: evented, in status.
        return absl::PermissionDeniedError(
            "StatefulSet " + name +
            " exists and is not this EtcdCluster's (no owner reference to it): Quorum does not "
            "take it over; delete or rename it, or rename the EtcdCluster");
      }
      if (live.ok()) cached = std::make_shared<const Json>(*std::move(live));
    }
    if (gvr == kStatefulSets && cached != nullptr) {
      absl::Status s = SwitchToOnDelete(client, cluster.metadata.ns, name, *cached);
      if (!s.ok()) return s;
    }
    if (gvr == kStatefulSets) {
      // The selector is immutable: an adopted StatefulSet keeps its own (adopt.h).
      absl::StatusOr<controllers::ClaimTemplateOutcome> prepared = controllers::PrepareStatefulSet(
          client, cache, KeepLiveSelector(std::move(obj), cached.get()), cached,
          "spec.storage.volumeClaimTemplate.spec");
      if (!prepared.ok()) return prepared.status();
      obj = prepared->statefulset;
      const bool apply = prepared->apply;
      if (claims != nullptr) *claims = *std::move(prepared);
      if (!apply) continue;
    }
    absl::StatusOr<bool> wrote = runtime::ApplyIfChanged(client, gvr, obj, cached, kFieldManager);
    if (!wrote.ok()) return wrote.status();
  }
  if (!pdb.has_value()) {
    absl::Status s = DeleteUnwanted(client, cache, cluster, kPdbs, NamesOf(cluster).pdb);
    if (!s.ok()) return s;
  }
  if (policy.has_value()) return absl::OkStatus();
  return DeleteUnwanted(client, cache, cluster, kNetworkPolicies, NamesOf(cluster).network_policy);
}

absl::Status WriteStatus(kube::Client& client, const EtcdCluster& cluster,
                         const api::EtcdClusterStatus& status) {
  if (status == cluster.status) return absl::OkStatus();
  const Json patch = {
      {"apiVersion", std::string(api::kEtcdApiVersion)},
      {"kind", std::string(api::kEtcdClusterKind)},
      {"metadata", {{"name", cluster.metadata.name}, {"namespace", cluster.metadata.ns}}},
      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote =
      client.ApplyStatus(kEtcdClusters, cluster.metadata.ns, patch,
                         {.field_manager = kFieldManager, .force = true, .discard_response = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

}  // namespace quorum::etcdcluster
