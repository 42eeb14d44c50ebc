#include "src/controllers/postgrescluster/reconciler.h"

#include <spdlog/spdlog.h>

#include "api/postgrescluster_types.h"
#include "src/base/failpoint.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/common/reconcile_log.h"
#include "src/controllers/common/stale_dependents.h"
#include "src/controllers/postgrescluster/backup_schedule.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/crash_loop.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/controllers/postgrescluster/member_plan.h"
#include "src/controllers/postgrescluster/next_wait.h"
#include "src/controllers/postgrescluster/objects.h"
#include "src/controllers/postgrescluster/observe.h"
#include "src/controllers/postgrescluster/remove_members.h"
#include "src/controllers/postgrescluster/restore.h"
#include "src/controllers/postgrescluster/roles.h"
#include "src/controllers/postgrescluster/roll_members.h"
#include "src/controllers/postgrescluster/status.h"
#include "src/controllers/postgrescluster/switchover.h"
#include "src/controllers/postgrescluster/sync_config.h"
#include "src/controllers/postgrescluster/write_status.h"
#include "src/runtime/apply.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;
using runtime::Result;

PostgresClusterReconciler::PostgresClusterReconciler(kube::Client& client, runtime::Cache& cache,
                                                     runtime::EventRecorder& recorder,
                                                     MemberUrlFunc member_url, Clock& clock)
    : client_(client),
      cache_(cache),
      recorder_(recorder),
      clock_(clock),
      member_url_(member_url ? std::move(member_url) : MemberUrlFunc(DefaultMemberUrl)),
      rest_(patroni::RestClientConfig{.timeout = absl::Seconds(3)}),
      probe_(patroni::RestClientConfig{.timeout = kMemberProbeTimeout}),
      backoff_(clock) {}

void PostgresClusterReconciler::FollowDcsLeaders(LeaderWatchSource::Enqueue enqueue) {
  leader_watch_ = std::make_unique<LeaderWatchSource>(std::move(enqueue));
}

void PostgresClusterReconciler::Forget(const runtime::Request& req) {
  if (leader_watch_ != nullptr) leader_watch_->Follow(req, std::nullopt);
  backoff_.Reset(req.Key());
  etcd_access_.Forget(req.Key());
  cert_memo_.Forget(req.Key());
  cert_memo_.Forget(req.Key() + "-pgbouncer-tls");  // the pooler's certificate
  pgbouncer_role_.Forget(req.Key());
  pgbouncer_pause_.Forget(req.Key());
  client_certs_.Forget(req.Key());
  config_sync_.Forget(req.Key());
  absl::MutexLock lock(&mu_);
  users_applied_.erase(req.Key());
  reload_until_.erase(req.Key());
  custom_cert_seen_.erase(req.Key());
  restore_switched_.erase(req.Key());
  leftover_said_.erase(req.Key());
  switchover_handled_.erase(req.Key());
}

size_t PostgresClusterReconciler::remembered() const {
  absl::MutexLock lock(&mu_);
  return users_applied_.size() + reload_until_.size() + custom_cert_seen_.size() +
         restore_switched_.size() + backoff_.size() + etcd_access_.size() + cert_memo_.size() +
         client_certs_.size() + config_sync_.size() + pgbouncer_role_.size() +
         pgbouncer_pause_.size() + leftover_said_.size() + switchover_handled_.size();
}

absl::StatusOr<PostgresClusterReconciler::Prepared>
PostgresClusterReconciler::ObserveDcsAndCredentials(const runtime::Request& req, Phase& ctx) {
  DcsResolution dcs = ObserveDcs(ctx);
  if (leader_watch_ != nullptr) {  // before the leader is read: no change slips between
    leader_watch_->Follow(req,
                          LeaderWatchTargetFor(ctx.cluster, dcs, SecretValueFrom(cache_, req.ns)));
  }
  // TLS first: the connection Secrets carry its CA.
  absl::StatusOr<TlsState> tls = EnsureTls(ctx, cert_memo_, client_certs_);
  if (!tls.ok()) {
    if (absl::IsFailedPrecondition(tls.status())) {
      recorder_.Warning(ctx.stored, "TLSNotReady", std::string(tls.status().message()));
    }
    return tls.status();
  }
  absl::StatusOr<patroni::BasicAuth> auth = EnsureRestApiSecret(ctx);
  if (!auth.ok()) return auth.status();
  ctx.rest_auth = *std::move(auth);
  if (absl::Status s = EnsureCredentials(ctx, tls->ca_pem); !s.ok()) return s;
  // spec.proxy.pgBouncer: its credentials and certificate (pgbouncer_phase.h).
  if (absl::Status s = EnsurePgBouncerSecrets(ctx, cert_memo_, *tls); !s.ok()) return s;
  ctx.pgbouncer_tls_digest = tls->pgbouncer_tls_digest;
  if (absl::Status s = EnsurePgBackRestClient(ctx); !s.ok()) return s;
  // clusterRef with etcd auth: the pods' own etcd user (etcd_user.h).
  absl::Status s =
      etcd_access_.Ensure(client_, cache_, recorder_, ctx.stored, ctx.cluster, dcs, ctx.now);
  if (!s.ok()) return s;
  return Prepared{std::move(dcs), *std::move(tls)};
}

std::optional<absl::Duration> PostgresClusterReconciler::ReloadAfterRenewal(const Phase& ctx,
                                                                            const Members& members,
                                                                            const TlsState& tls) {
  const std::string key = ctx.n.ns + "/" + ctx.n.cluster;
  const absl::Time now = ctx.now;
  std::optional<absl::Duration> wait;
  if (tls.renew_at.has_value()) wait = std::max(*tls.renew_at - now, absl::Seconds(1));
  absl::Time until;
  {
    absl::MutexLock lock(&mu_);
    bool renewed = tls.renewed;
    if (tls.custom_digest.has_value()) {
      // The user's certificate: renewed when its Secret holds something new.
      // The first sight after a start counts too (a renewal while the
      // operator was down); reloading an unchanged certificate is harmless.
      auto [seen, first] = custom_cert_seen_.try_emplace(key, *tls.custom_digest);
      renewed = first || seen->second != *tls.custom_digest;
      seen->second = *tls.custom_digest;
    }
    if (renewed) reload_until_[key] = now + kReloadWindow;
    auto it = reload_until_.find(key);
    if (it == reload_until_.end()) return wait;
    if (now >= it->second) {
      reload_until_.erase(it);
      return wait;
    }
    until = it->second;
  }
  // SIGHUP is cheap and idempotent; the kubelet's swap of the files cannot be
  // watched, so the members reload a few times within the window.
  for (const auto& [pod, url] : members.urls) {
    absl::Status s = rest_.Reload(url, ctx.rest_auth);
    if (!s.ok())
      spdlog::warn("reload of {} after certificate renewal: {}", pod, std::string(s.message()));
  }
  const absl::Duration next = std::min(kReloadInterval, until - now);
  return wait.has_value() ? std::min(*wait, next) : next;
}

namespace {

// `wait` shortened to come back within `also` (a requeue now stays one).
void WaitAtMost(Result& wait, absl::Duration also) {
  if (!wait.requeue && wait.requeue_after == absl::ZeroDuration()) {
    wait.requeue_after = also;
  } else if (wait.requeue_after > absl::ZeroDuration()) {
    wait.requeue_after = std::min(wait.requeue_after, also);
  }
}

// The in-place restore planned at `now` (restore.h) into `cluster`'s
// status; what it decided is evented on `stored`.
void PlanRestoreInto(PostgresCluster& cluster, absl::Time now, runtime::EventRecorder& recorder,
                     const Json& stored) {
  const RestorePlan restore = PlanRestore(cluster, now);
  cluster.status.restore = restore.status;
  if (!restore.ignored.empty()) recorder.Warning(stored, "RestoreNotEnabled", restore.ignored);
  if (restore.started) recorder.Normal(stored, "RestoreStarted", restore.status->message);
  if (restore.refused) recorder.Warning(stored, "RestoreRefused", restore.status->message);
}

}  // namespace

absl::StatusOr<std::optional<absl::Duration>> PostgresClusterReconciler::ScheduledBackupsPhase(
    const Phase& ctx) {
  if (!scheduled_backups_) {
    if (HasBackupSchedules(ctx.cluster)) {
      recorder_.Warning(ctx.stored, "BackupSchedulesIgnored",
                        "spec.backups.pgbackrest.repos[].schedules: the PostgresBackup resource "
                        "is not served (install its CRD and restart the operator)");
    }
    return std::nullopt;
  }
  // None while an in-place restore brings the members back.
  if (RestoreIn(ctx.cluster, api::kRestoreRestoring)) return std::nullopt;
  return ScheduleBackups(ctx, ctx.now);
}

std::optional<absl::StatusOr<Result>> PostgresClusterReconciler::HoldForRestore(
    const runtime::Request& req, const Phase& ctx, PostgresCluster& cluster,
    const DcsResolution& dcs) {
  if (const std::string blocked = RestoreBlocked(cluster); !blocked.empty()) {
    recorder_.Warning(ctx.stored, "RestoreBlocked", blocked);
    cluster.status.restore->message = blocked;
    absl::Status wrote =
        WriteStatus(ctx, dcs, Members{}, std::nullopt, "", AppliedObjects{}, std::nullopt);
    if (!wrote.ok()) return wrote;
    return Result{};  // a spec edit comes back
  }
  if (!RestoreIn(cluster, api::kRestoreStopping)) return std::nullopt;
  api::PgBackRestRestoreStatus& state = *cluster.status.restore;
  const size_t pods = cache_.ByInstance(kPods, req.ns, req.name).size();
  Result wait;
  if (pods > 0) {  // their deletion reconciles again
    state.message = absl::StrCat("waiting for ", pods, " member pod(s) to stop");
  } else {
    Failpoint("postgrescluster/before-RestoreWipe");
    absl::StatusOr<bool> wiped = WipeMembers(ctx, dcs);
    if (wiped.ok()) Failpoint("postgrescluster/after-RestoreWipe");
    if (!wiped.ok()) {
      recorder_.Warning(ctx.stored, "RestoreWaiting",
                        absl::StrCat("in-place restore ", state.id,
                                     ": removing Patroni's state and the members' volumes: ",
                                     wiped.status().message()));
      return wiped.status();  // retried with backoff
    }
    if (*wiped) {
      state.phase = api::kRestoreRestoring;
      state.message = "the first member restores the backup and recovers; the others clone it";
      recorder_.Normal(ctx.stored, "RestoreRestoring",
                       absl::StrCat("in-place restore ", state.id, ": ", state.message));
      wait.requeue = true;
    } else {
      state.message = "waiting for the members' volumes to be deleted";
      wait.requeue_after = backoff_.Next(req.Key(), "volumes being deleted for a restore");
    }
  }
  absl::Status wrote =
      WriteStatus(ctx, dcs, Members{}, std::nullopt, "", AppliedObjects{}, std::nullopt);
  if (!wrote.ok()) return wrote;
  return wait;
}

void PostgresClusterReconciler::FinishRestore(const runtime::Request& req, const Phase& ctx,
                                              PostgresCluster& cluster,
                                              const std::string& primary) {
  api::PgBackRestRestoreStatus& state = *cluster.status.restore;
  state.phase = api::kRestoreSucceeded;
  state.finished_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", ctx.now, absl::UTCTimeZone());
  state.message = absl::StrCat("primary ", primary, " serves the restored data");
  recorder_.Normal(ctx.stored, "RestoreSucceeded",
                   absl::StrCat("in-place restore ", state.id, ": ", state.message));
  backoff_.Reset(req.Key());
  absl::MutexLock lock(&mu_);
  users_applied_.erase(req.Key());  // the roles as the backup had them: apply the spec's again
}

PostgresClusterReconciler::Observed PostgresClusterReconciler::ObserveMembers(
    const Phase& ctx, const Prepared& prepared) {
  Observed out;
  if (RestoreStopsMembers(ctx.cluster)) return out;
  out.pods = ObservePods(ctx);
  out.members = Observe(probe_, cache_, out.pods, member_url_, ctx.cluster, prepared.tls.ca_pem,
                        prepared.tls.operator_client,
                        out.pods.empty() ? std::nullopt : ObserveLeader(ctx, prepared.dcs));
  return out;
}

absl::StatusOr<std::string> PostgresClusterReconciler::ActOnMembers(const Phase& ctx,
                                                                    const Prepared& prepared,
                                                                    const Observed& observed) {
  const std::vector<ObjectPtr>& pods = observed.pods;
  const Members& members = observed.members;
  const MemberPlan& plan = observed.plan;
  // The role labels route clients: corrected first; while that fails, no
  // rollout step and no idempotent write (member_plan.h).
  const std::string roles_problem = CorrectRoleLabels(ctx, pods, members);
  const bool labels_ok = roles_problem.empty();
  // The removal's waits and its empty removed sets (membership.h); it
  // carries a step only when that is the plan's.
  if (absl::Status s = RemoveMembers(ctx, plan.membership, members, rest_); !s.ok()) return s;
  if (plan.roll.kind == RollStep::kWait && labels_ok) {  // said, aggregated by the recorder
    ctx.recorder.Normal(ctx.stored, "RollingUpdateWaiting", plan.roll.reason);
  }
  switch (plan.step) {
    case MemberPlan::kReleaseLock:  // a healthy replica takes over
      ReleaseLeaderLock(ctx, prepared.dcs, plan.lock);
      break;
    case MemberPlan::kRoll:
      if (labels_ok) TakeRollStep(ctx, plan.roll, members, rest_);
      break;
    case MemberPlan::kRemoval:         // taken by RemoveMembers above
    case MemberPlan::kUserSwitchover:  // SwitchoverPhase, after the writes below
    case MemberPlan::kNone:
      break;
  }
  // Each phase reports its own failure (event, Ready's message): spec.users
  // failing holds no configuration change back.
  std::string users_problem;
  if (plan.ensure_users && labels_ok) {
    users_problem =
        EnsureUsersOnce(ctx.cluster, members.primary, pods, ctx.stored, prepared.tls.ca_pem);
    if (users_problem.empty()) {
      users_problem = pgbouncer_role_.Ensure(ctx, members.primary, pods, prepared.tls.ca_pem);
    }
  }
  if (plan.sync_config && labels_ok) config_sync_.Sync(ctx, prepared.dcs, members, rest_);
  return labels_ok ? users_problem : roles_problem;
}

// Claims are not watched (the cache holds only labelled ones): while some
// hold a StatefulSet back, look again with backoff until they are deleted.
std::optional<absl::Duration> PostgresClusterReconciler::LeftoverClaimsRecheck(
    const runtime::Request& req, const Json& stored, const AppliedObjects& applied) {
  if (applied.leftover_claims.empty()) return std::nullopt;  // none, or not looked for
  {
    absl::MutexLock lock(&mu_);
    std::vector<std::string>& said = leftover_said_[req.Key()];
    if (said != applied.leftover_claims) {
      said = applied.leftover_claims;
      recorder_.Warning(stored, "LeftoverClaims", LeftoverClaimsProblem(said));
    }
  }
  return backoff_.Next(req.Key(), "leftover claims");
}

std::optional<Result> PostgresClusterReconciler::WaitForEarlierObjects(const runtime::Request& req,
                                                                       const Json& stored,
                                                                       const std::string& uid) {
  const std::string stale = controllers::StaleDependent(
      cache_,
      {kStatefulSets, kDeployments, kServices, kConfigMaps, kPdbs, kServiceAccounts, kRoles,
       kRoleBindings, kNetworkPolicies, kSecrets},
      {.kind = "PostgresCluster", .ns = req.ns, .name = req.name, .uid = uid});
  if (stale.empty()) return std::nullopt;
  recorder_.Normal(stored, "WaitingForEarlierObjects",
                   stale +
                       " belongs to an earlier PostgresCluster of this name; waiting for "
                       "the garbage collector to delete it");
  return Result{.requeue_after = backoff_.Next(req.Key(), "earlier objects: " + stale)};
}

SwitchoverOutcome PostgresClusterReconciler::SwitchoverPhase(const Phase& ctx,
                                                             const Members& members,
                                                             const std::string& ca_pem,
                                                             bool may_act) {
  // A switchover trigger waits for an upgrade (which moves the primary itself).
  if (UpgradeUnderway(ctx.cluster)) return {};
  const std::string key = ctx.n.ns + "/" + ctx.n.cluster;
  pgbouncer_pause_.ResumeLeftovers(ctx, ca_pem);  // after a restart: no pooler left paused
  const std::string trigger = NewSwitchoverTrigger(ctx.cluster);
  {
    absl::MutexLock lock(&mu_);
    auto it = switchover_handled_.find(key);
    if (!trigger.empty() && it != switchover_handled_.end() && it->second.trigger == trigger) {
      return {.record = it->second};  // handled: the cache lags our status write
    }
  }
  const SwitchoverPlan plan = PlanSwitchover(ctx.cluster, members, ctx.now);
  if (plan.kind == SwitchoverPlan::kAct && !may_act) return {};  // another step goes first
  std::unique_ptr<PgBouncerConsole> pooler;
  if (plan.kind == SwitchoverPlan::kAct) {
    absl::StatusOr<std::unique_ptr<PgBouncerConsole>> console = PgBouncerConsoleOf(ctx, ca_pem);
    if (console.ok()) pooler = *std::move(console);  // else: the switchover goes on unpaused
  }
  SwitchoverOutcome sw = Switchover(plan, ctx.cluster, members, rest_, ctx.rest_auth, recorder_,
                                    ctx.stored, pooler.get());
  if (sw.pooler_left_paused) pgbouncer_pause_.MarkUnsure(key);
  if (sw.record.has_value() && sw.record->result != kSwitchoverWaiting) {
    absl::MutexLock lock(&mu_);
    switchover_handled_[key] = *sw.record;
  }
  return sw;
}

absl::StatusOr<Result> PostgresClusterReconciler::Reconcile(const runtime::Request& req) {
  controllers::ReconcileLogScope log("postgrescluster", req);
  const absl::Time now = clock_.Now();  // once: every decision below is made at this time
  ObjectPtr stored = cache_.Get(kPostgresClusters, req.ns, req.name);
  if (stored == nullptr) {
    Forget(req);
    return Result{};
  }
  if (controllers::BeingDeleted(*stored)) return ReconcileDeletion(req, *stored, now);
  absl::StatusOr<PostgresCluster> cluster = api::ParsePostgresCluster(*stored);  // parse
  if (!cluster.ok()) {
    recorder_.Warning(*stored, "InvalidSpec", std::string(cluster.status().message()));
    return runtime::TerminalError(cluster.status());
  }
  if (std::optional<Result> wait = WaitForEarlierObjects(req, *stored, cluster->metadata.uid)) {
    return *wait;
  }
  // The DCS-cleanup finalizer (added with an etcd DCS, removed without).
  absl::StatusOr<absl::Duration> finalizer = ReconcileFinalizer(
      client_, cache_, recorder_, *stored, *cluster, now, [] { return absl::ZeroDuration(); });
  if (!finalizer.ok()) return finalizer.status();
  // An in-place restore (restore.h): a new trigger starts one; the builders
  // and the status read its phase from the status.
  PlanRestoreInto(*cluster, now, recorder_, *stored);
  RecordDcsObjects(cache_, *cluster);  // the kubernetes DCS's objects, kept from now on
  ResolveExporter(cache_, *cluster);   // an unset spec.monitoring.exporter.enabled
  Phase ctx{client_, cache_, recorder_, *stored, *cluster, NamesOf(*cluster), operator_peer_, now};
  // Observe the DCS; act on what Kubernetes holds.
  absl::StatusOr<Prepared> prepared = ObserveDcsAndCredentials(req, ctx);
  if (!prepared.ok()) return prepared.status();
  const DcsResolution& dcs = prepared->dcs;
  // Observe the members (their plan follows the upgrade's phase).
  Observed observed = ObserveMembers(ctx, *prepared);
  const Members& members = observed.members;
  // A major upgrade (major_upgrade.h), planned from the spec as asked: from
  // here on, *cluster's spec is the one the members run.
  absl::StatusOr<std::optional<absl::Duration>> upgrade_wait =
      MajorUpgradePhase(ctx, *cluster, dcs, members);
  if (!upgrade_wait.ok()) return upgrade_wait.status();
  // What happens to the members, at most one risky step (member_plan.h): a
  // scale-down is held while the primary must move first.
  observed.plan = PlanMemberSteps(ObserveMemberChanges(ctx, dcs, observed.pods, observed.members));
  AppliedObjects applied;
  // An object the API server refuses (a policy, a quota) holds nothing
  // else back: it is evented, named in the status and retried with backoff.
  const absl::Status refused = ApplyOwnedObjects(ctx, dcs, observed.plan.membership.hold, &applied);
  if (!refused.ok() && !runtime::IsRefusedWrite(refused)) return refused;
  if (!refused.ok()) recorder_.Warning(*stored, "ApplyRefused", std::string(refused.message()));
  // An in-place restore may hold the members back (restore.h).
  if (std::optional<absl::StatusOr<Result>> held = HoldForRestore(req, ctx, *cluster, dcs)) {
    return *std::move(held);
  }
  if (std::optional<absl::StatusOr<Result>> held = HoldForUpgrade(ctx, dcs, *upgrade_wait)) {
    return *std::move(held);
  }
  // A restore's steps while members run: archive checked; done once a primary serves.
  const std::optional<absl::Duration> restore_wait =
      RestoreStepOnMembers(req, ctx, *cluster, observed, prepared->tls);
  absl::StatusOr<std::string> problem = ActOnMembers(ctx, *prepared, observed);
  if (!problem.ok()) return problem.status();
  if (problem->empty()) *problem = std::string(refused.message());
  const SwitchoverOutcome sw = SwitchoverPhase(ctx, members, prepared->tls.ca_pem,
                                               observed.plan.step == MemberPlan::kUserSwitchover);
  // Status last, only when it changed; then wait.
  std::optional<std::vector<api::PgBackRestRepoStatus>> backups;
  if (scheduled_backups_) backups = SummarizeBackups(*cluster, FinishedBackupsOf(ctx));
  absl::Status wrote = WriteStatus(ctx, dcs, members, sw.record, *problem, applied, backups);
  if (!wrote.ok()) return wrote;
  if (!refused.ok()) return refused;  // retried with the queue's backoff
  absl::StatusOr<std::optional<absl::Duration>> backup_wait = ScheduledBackupsPhase(ctx);
  if (!backup_wait.ok()) return backup_wait.status();
  runtime::Result wait = NextWait(backoff_, req, dcs, members);
  for (const std::optional<absl::Duration>& also :
       {ReloadAfterRenewal(ctx, members, prepared->tls), *backup_wait, sw.recheck_after,
        *upgrade_wait, restore_wait, LeftoverClaimsRecheck(req, ctx.stored, applied),
        config_sync_.RetryAfter(req.Key())}) {
    if (also.has_value()) WaitAtMost(wait, *also);
  }
  return wait;
}

}  // namespace quorum::postgrescluster
