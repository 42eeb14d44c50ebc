#include "src/controllers/postgrescluster/reconciler.h"

#include "api/postgrescluster_types.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/reconcile_log.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/controllers/postgrescluster/next_wait.h"
#include "src/controllers/postgrescluster/objects.h"
#include "src/controllers/postgrescluster/observe.h"
#include "src/controllers/postgrescluster/roles.h"
#include "src/controllers/postgrescluster/roll_members.h"
#include "src/controllers/postgrescluster/switchover.h"
#include "src/controllers/postgrescluster/write_status.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;
using runtime::Result;

PostgresClusterReconciler::PostgresClusterReconciler(kube::Client& client, runtime::Cache& cache,
                                                     runtime::EventRecorder& recorder,
                                                     MemberUrlFunc member_url)
    : client_(client),
      cache_(cache),
      recorder_(recorder),
      member_url_(member_url ? std::move(member_url) : MemberUrlFunc(DefaultMemberUrl)),
      rest_(patroni::RestClientConfig{.timeout = absl::Seconds(3)}),
      probe_(patroni::RestClientConfig{.timeout = kMemberProbeTimeout}) {}

void PostgresClusterReconciler::FollowDcsLeaders(LeaderWatchSource::Enqueue enqueue) {
  leader_watch_ = std::make_unique<LeaderWatchSource>(std::move(enqueue));
}

void PostgresClusterReconciler::Forget(const runtime::Request& req) {
  if (leader_watch_ != nullptr) leader_watch_->Follow(req, std::nullopt);
  backoff_.Reset(req.Key());
  etcd_access_.Forget(req.Key());
  absl::MutexLock lock(&mu_);
  users_applied_.erase(req.Key());
}

size_t PostgresClusterReconciler::remembered() const {
  absl::MutexLock lock(&mu_);
  return users_applied_.size() + backoff_.size() + etcd_access_.size();
}

absl::StatusOr<DcsResolution> PostgresClusterReconciler::ObserveDcsAndCredentials(
    const runtime::Request& req, const Phase& ctx) {
  DcsResolution dcs = ObserveDcs(ctx);
  if (leader_watch_ != nullptr) {  // before the leader is read: no change slips between
    leader_watch_->Follow(req,
                          LeaderWatchTargetFor(ctx.cluster, dcs, SecretValueFrom(cache_, req.ns)));
  }
  if (absl::Status s = EnsureCredentials(ctx); !s.ok()) return s;
  // clusterRef with etcd auth: the pods' own etcd user (etcd_user.h).
  absl::Status s = etcd_access_.Ensure(client_, cache_, recorder_, ctx.stored, ctx.cluster, dcs);
  if (!s.ok()) return s;
  return dcs;
}

absl::StatusOr<Result> PostgresClusterReconciler::Reconcile(const runtime::Request& req) {
  controllers::ReconcileLogScope log("postgrescluster", req);
  ObjectPtr stored = cache_.Get(kPostgresClusters, req.ns, req.name);
  if (stored == nullptr) {
    Forget(req);
    return Result{};
  }
  if ((*stored)["metadata"].contains("deletionTimestamp")) return ReconcileDeletion(req, *stored);
  absl::StatusOr<PostgresCluster> cluster = api::ParsePostgresCluster(*stored);  // parse
  if (!cluster.ok()) {
    recorder_.Warning(*stored, "InvalidSpec", std::string(cluster.status().message()));
    return runtime::TerminalError(cluster.status());
  }
  // The DCS-cleanup finalizer (added with an etcd DCS, removed without).
  absl::StatusOr<absl::Duration> finalizer = ReconcileFinalizer(
      client_, cache_, recorder_, *stored, *cluster, [] { return absl::ZeroDuration(); });
  if (!finalizer.ok()) return finalizer.status();
  const Phase ctx{client_, cache_, recorder_, *stored, *cluster, NamesOf(*cluster)};
  // Observe the DCS; act on what Kubernetes holds.
  absl::StatusOr<DcsResolution> dcs_or = ObserveDcsAndCredentials(req, ctx);
  if (!dcs_or.ok()) return dcs_or.status();
  const DcsResolution& dcs = *dcs_or;
  controllers::ClaimTemplateOutcome claims;
  if (absl::Status s = ApplyOwnedObjects(ctx, dcs, &claims); !s.ok()) return s;
  // Observe the members; act on them.
  const std::vector<ObjectPtr> pods = ObservePods(ctx);
  const Members members = Observe(probe_, cache_, pods, member_url_,
                                  pods.empty() ? std::nullopt : ObserveLeader(ctx, dcs));
  std::string problem = CorrectRoleLabels(ctx, pods, members);
  if (problem.empty()) RollOutdatedMembers(ctx, pods, members, rest_);
  if (!members.primary.empty() && problem.empty()) {
    problem = EnsureUsersOnce(*cluster, members.primary, pods, *stored);
  }
  const std::optional<api::PostgresSwitchoverStatus> switchover =
      Switchover(*cluster, members, rest_, recorder_, *stored);
  // Status last, only when it changed; then wait.
  absl::Status wrote = WriteStatus(ctx, dcs, members, switchover, problem, claims);
  if (!wrote.ok()) return wrote;
  return NextWait(backoff_, req, dcs, members);
}

}  // namespace quorum::postgrescluster
