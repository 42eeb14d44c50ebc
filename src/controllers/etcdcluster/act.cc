#include "src/controllers/etcdcluster/act.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/etcd/errors.h"
#include "src/runtime/apply.h"

namespace quorum::etcdcluster {

absl::Status ActOnEtcd(etcd::Client* client, const etcd::Action& action) {
  switch (action.kind) {
    case etcd::Action::kAddLearner:
    case etcd::Action::kPromote:
    case etcd::Action::kMoveLeader:
    case etcd::Action::kRemoveMember:
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

absl::Status ApplyOwnedObjects(kube::Client& client, const runtime::Cache& cache,
                               const EtcdCluster& cluster, const Plan& plan, bool step_done,
                               controllers::ClaimTemplateOutcome* claims,
                               const std::string& operator_image) {
  // The state before the StatefulSet, so a new pod never starts with an old
  // member list.
  std::vector<std::pair<kube::GroupVersionResource, Json>> desired = {
      {kServices, BuildHeadlessService(cluster)},
      {kServices, BuildClientService(cluster)},
      {kConfigMaps, BuildStateConfigMap(cluster, StateAfterStep(cluster, plan, step_done))},
      {kStatefulSets, BuildStatefulSet(cluster, plan.statefulset_replicas, operator_image)}};
  const int voting = std::max(1, DesiredReplicas(cluster));
  if (auto pdb = BuildPodDisruptionBudget(cluster, voting)) desired.emplace_back(kPdbs, *pdb);
  for (auto& [gvr, obj] : desired) {
    const std::string name = obj["metadata"]["name"].get<std::string>();
    runtime::ObjectPtr cached = cache.Get(gvr, cluster.metadata.ns, name);
    if (gvr == kStatefulSets) {
      absl::StatusOr<controllers::ClaimTemplateOutcome> prepared = controllers::PrepareStatefulSet(
          client, cache, std::move(obj), cached, "spec.storage.volumeClaimTemplate.spec");
      if (!prepared.ok()) return prepared.status();
      obj = prepared->statefulset;
      const bool apply = prepared->apply;
      if (claims != nullptr) *claims = *std::move(prepared);
      if (!apply) continue;
    }
    absl::StatusOr<bool> wrote = runtime::ApplyIfChanged(client, gvr, obj, cached, kFieldManager);
    if (!wrote.ok()) return wrote.status();
  }
  return absl::OkStatus();
}

absl::Status WriteStatus(kube::Client& client, const EtcdCluster& cluster,
                         const api::EtcdClusterStatus& status) {
  if (status == cluster.status) return absl::OkStatus();
  const Json patch = {
      {"apiVersion", "etcd.aenix.io/v1alpha1"},
      {"kind", "EtcdCluster"},
      {"metadata", {{"name", cluster.metadata.name}, {"namespace", cluster.metadata.ns}}},
      {"status", api::ToJson(status)}};
  absl::StatusOr<Json> wrote =
      client.ApplyStatus(kEtcdClusters, cluster.metadata.ns, patch,
                         {.field_manager = kFieldManager, .force = true, .discard_response = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

}  // namespace quorum::etcdcluster
