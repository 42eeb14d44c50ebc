// PostgresClusterReconciler: makes one PostgresCluster's objects, Patroni
// members and role labels match its spec. Each reconcile, level-triggered and
// safe to repeat or to crash in:
//   1. read the cluster and resolve its DCS (Secrets checked, clusterRef
//      followed); a problem is a Warning event and DCSReady=False, never a
//      crash loop — the objects already running are left alone;
//   2. the cluster's TLS: its CA and the members' server certificate, renewed
//      in place before it expires (ensure_tls.h); the REST API credentials;
//      create the credential Secrets that are missing (once; never rewritten;
//      with the CA); with clusterRef and etcd auth, the pods' own etcd user
//      (etcd_user.h);
//   3. apply the owned objects that differ from the cache (server-side apply),
//      the NetworkPolicy among them (access.h);
//   4. read the DCS leader key (etcd DCS), ask every running member's Patroni
//      REST API for its role at once (short timeouts; members on NotReady
//      nodes skipped) and correct the pods' role labels: only the leader that
//      accepts writes carries `primary`, the old primary's label goes first
//      (routing stays right even when the pods cannot reach the API server);
//   5. make spec.users exist inside PostgreSQL (through the primary, only
//      when the users, their Secrets or the primary changed); bring Patroni's
//      dynamic configuration in the DCS in line with the spec (timings,
//      parameters, pg_hba; only when it changed, sync_config.h);
//   6. act on a new switchover trigger annotation, once (a pooler paused
//      around a switchover);
//   (a raised spec.postgresVersion: a major upgrade, major_upgrade.h, which
//   holds steps 4–6 back while it runs);
//   7. write status last, only when it changed;
//   8. after a certificate renewal, tell the members to reload for a while;
//      wait: nothing while a watch signals the next change (the etcd DCS
//      leader key, see leader_watch.h; a referenced
//      Secret or EtcdCluster, a pod starting, a role label set by Patroni or
//      its callback); capped backoff (1 s .. 30 s with the etcd DCS, 5 min
//      otherwise; restarted when the roles change) for re-reading the roles;
//      at most until the server certificate is due for renewal.
// Reconcile (reconciler.cc) lists these phases; each is its own file:
// observe.h (1, 4: the DCS, pods, leader key, members' roles), member_plan.h
// (what happens to the members: one risky step at most), objects.h (2,
// 3), roles.h (4: role labels), roll_members.h (rolling update, planned by
// rollout.h), ensure_users.cc and sync_config.h (5), switchover.h (6), write_status.h (7, built
// by status.h), next_wait.h (8); deletion.cc for a deleting cluster, setup.cc
// for the watches.
// An already-converged cluster costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different clusters.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RECONCILER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "src/base/clock.h"
#include "src/controllers/common/job_outcome.h"
#include "src/controllers/common/resources.h"
#include "src/controllers/common/wait.h"
#include "src/controllers/postgrescluster/ensure_tls.h"
#include "src/controllers/postgrescluster/etcd_user.h"
#include "src/controllers/postgrescluster/leader_watch.h"
#include "src/controllers/postgrescluster/major_upgrade.h"
#include "src/controllers/postgrescluster/member_plan.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/pgbouncer_phase.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/restore_check.h"
#include "src/controllers/postgrescluster/switchover.h"
#include "src/controllers/postgrescluster/sync_config.h"
#include "src/kube/resources.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::postgrescluster {

struct AppliedObjects;  // objects.h

using controllers::kEtcdClusters;
using controllers::kPostgresBackups;
using controllers::kPostgresClusters;
using kube::kConfigMaps;
using kube::kEndpoints;
using kube::kNetworkPolicies;
using kube::kNodes;
using kube::kPdbs;
using kube::kPods;
using kube::kRoleBindings;
using kube::kRoles;
using kube::kSecrets;
using kube::kServiceAccounts;
using kube::kServices;
using kube::kStatefulSets;

// Index names on the PostgresCluster informer.
inline constexpr char kSecretIndex[] = "postgrescluster-secrets";
inline constexpr char kEtcdClusterIndex[] = "postgrescluster-etcdcluster";

// The base URL of a member's Patroni REST API from its pod; tests and the
// node runtime may substitute it.
using MemberUrlFunc = std::function<std::string(const nlohmann::json& pod)>;

class PostgresClusterReconciler : public runtime::Reconciler {
 public:
  // Set by WatchScheduledBackups: PostgresBackups are cached and watched.
  void EnableScheduledBackups() { scheduled_backups_ = true; }

  // `clock`: the time of every decision (certificate renewal, the DCS
  // cleanup's deadline, backup schedules, backoffs); tests advance a
  // FakeClock instead of waiting. It must outlive the reconciler.
  PostgresClusterReconciler(kube::Client& client, runtime::Cache& cache,
                            runtime::EventRecorder& recorder, MemberUrlFunc member_url = nullptr,
                            Clock& clock = RealClock());
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

  // Wakes a cluster's reconcile (through `enqueue`) when its etcd DCS leader
  // key changes: one watch per distinct DCS location (leader_watch.h),
  // followed from each reconcile. Call before the controller starts.
  void FollowDcsLeaders(LeaderWatchSource::Enqueue enqueue);
  const LeaderWatchSource* leader_watch() const { return leader_watch_.get(); }

  // The operator's own namespace, for the NetworkPolicy's operator peer
  // ("" = the operator's label in any namespace). Call before the start.
  void SetOperatorNamespace(std::string ns) { operator_peer_.ns = std::move(ns); }

  // How many objects the reconciler keeps memory for (users applied, role
  // waits): bounded by the live clusters; for tests.
  size_t remembered() const;

 private:
  bool scheduled_backups_ = false;
  // While claims of an earlier cluster hold a StatefulSet back: a Warning
  // event LeftoverClaims when they are new (not at each recheck), and when to
  // look again (with backoff).
  std::optional<absl::Duration> LeftoverClaimsRecheck(const runtime::Request& req,
                                                      const Json& stored,
                                                      const AppliedObjects& applied);
  // An earlier PostgresCluster of this name (another uid): its objects
  // (Secrets with passwords among them) go first; the wait, if any.
  std::optional<runtime::Result> WaitForEarlierObjects(const runtime::Request& req,
                                                       const nlohmann::json& stored,
                                                       const std::string& uid);
  absl::StatusOr<runtime::Result> ReconcileDeletion(const runtime::Request& req,
                                                    const nlohmann::json& stored, absl::Time now);
  // Drops what is kept for an object that is gone or going.
  void Forget(const runtime::Request& req);
  // Scheduled backups (backup_schedule.h) when the PostgresBackup resource is
  // served, none during an in-place restore: when to come back, if ever.
  absl::StatusOr<std::optional<absl::Duration>> ScheduledBackupsPhase(const Phase& ctx);
  // An in-place restore (restore.h) that holds the members back: blocked
  // (the spec no longer says what to restore), or Stopping — waits for the
  // member pods to go, then wipes their state and volumes and moves to
  // Restoring. Writes the status and returns the reconcile's result;
  // nullopt when the reconcile goes on as usual.
  std::optional<absl::StatusOr<runtime::Result>> HoldForRestore(const runtime::Request& req,
                                                                const Phase& ctx,
                                                                PostgresCluster& cluster,
                                                                const DcsResolution& dcs);
  // A major upgrade (major_upgrade.h): planned from the spec as asked, acted
  // on (a switchover, the Job, the DCS cleared), recorded in `cluster`'s
  // status; then `cluster`'s spec is the one the members run
  // (ApplyRunningView). Returns when to look again, if a wait has a bound.
  absl::StatusOr<std::optional<absl::Duration>> MajorUpgradePhase(const Phase& ctx,
                                                                  PostgresCluster& cluster,
                                                                  const DcsResolution& dcs,
                                                                  const Members& members);
  absl::StatusOr<std::optional<controllers::JobOutcome>> ObserveUpgradeJob(const Phase& ctx);
  absl::Status ActOnUpgrade(const Phase& ctx, const DcsResolution& dcs, const Members& members,
                            UpgradeStep& step);
  // While an upgrade stops the members or runs pg_upgrade: the status
  // written, and the reconcile's result (nothing else is done); nullopt when
  // the reconcile goes on as usual.
  std::optional<absl::StatusOr<runtime::Result>> HoldForUpgrade(
      const Phase& ctx, const DcsResolution& dcs, std::optional<absl::Duration> recheck);
  // Restoring → Succeeded once `primary` serves: an event, and the users are
  // applied again (the restored roles are the backup's).
  void FinishRestore(const runtime::Request& req, const Phase& ctx, PostgresCluster& cluster,
                     const std::string& primary);
  // Steps 1–2: the DCS resolved (and its leader key followed), the credential
  // Secrets and, with clusterRef and etcd auth, the pods' own etcd user.
  // Also the cluster's TLS (ensure_tls.h) and REST API credentials, which
  // it sets in ctx.rest_auth.
  struct Prepared {
    DcsResolution dcs;
    TlsState tls;
  };
  absl::StatusOr<Prepared> ObserveDcsAndCredentials(const runtime::Request& req, Phase& ctx);
  // After a certificate renewal (ours, or the user's customSecret changing),
  // POST /reload to every member until the
  // kubelet has surely swapped the mounted files (kReloadWindow); the wait
  // until the next reload or renewal.
  std::optional<absl::Duration> ReloadAfterRenewal(const Phase& ctx, const Members& members,
                                                   const TlsState& tls);

  // The members as they are (none while an in-place restore holds them
  // stopped), and once a major upgrade's phase has run, what happens to
  // them in this reconcile (member_plan.h).
  struct Observed {
    std::vector<runtime::ObjectPtr> pods;
    Members members;
    MemberPlan plan;
  };
  Observed ObserveMembers(const Phase& ctx, const Prepared& prepared);
  // An in-place restore's steps while members run: in Checking
  // (restore_check.h) asks the primary (AskArchiver) and moves `cluster`'s
  // restore status on to Stopping or Failed, or keeps it waiting; in
  // Restoring, FinishRestore once a primary serves. Returns when to look
  // again (nullopt: no wait). restore_check_phase.cc.
  std::optional<absl::Duration> RestoreStepOnMembers(const runtime::Request& req, const Phase& ctx,
                                                     PostgresCluster& cluster,
                                                     const Observed& observed, const TlsState& tls);
  // pg_stat_archiver of the primary, after closing its segment once per
  // trigger (remembered in restore_switched_).
  absl::StatusOr<ArchiverView> AskArchiver(const Phase& ctx, const Observed& observed,
                                           const std::string& ca_pem);
  // Carries out observed.plan (member_plan.h): the role labels corrected
  // first, the waits said, then its one risky step (a crash-looping leader's
  // lock ended, a removal's, a rollout step; the user's switchover is
  // SwitchoverPhase's), then spec.users and the dynamic configuration.
  // Returns a problem sentence or ""; errors: a removal's.
  absl::StatusOr<std::string> ActOnMembers(const Phase& ctx, const Prepared& prepared,
                                           const Observed& observed);

  // Step 6: a new switchover trigger (switchover.h), the pooler paused
  // around it; first, a pooler left paused after a restart is resumed.
  // `may_act`: the member plan's step is this switchover; otherwise a
  // trigger that Patroni would be asked for now waits for a later reconcile.
  SwitchoverOutcome SwitchoverPhase(const Phase& ctx, const Members& members,
                                    const std::string& ca_pem, bool may_act);

  // Step 5; returns a problem sentence or "".
  std::string EnsureUsersOnce(const PostgresCluster& cluster, const std::string& primary,
                              const std::vector<runtime::ObjectPtr>& pods,
                              const nlohmann::json& stored, const std::string& ca_pem);

  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  Clock& clock_;
  MemberUrlFunc member_url_;
  patroni::RestClient rest_;       // switchovers, failovers
  patroni::RestClient probe_;      // the members' roles: short timeouts
  DynamicConfigSync config_sync_;  // the spec's dynamic configuration, in the DCS
  // What spec.users was last applied inside PostgreSQL (primary, users,
  // Secret versions, uid), so unchanged users cost no SQL.
  mutable absl::Mutex mu_;
  // namespace/name -> the key last applied; erased when the object goes.
  std::map<std::string, std::string> users_applied_ ABSL_GUARDED_BY(mu_);
  // namespace/name -> until when members are told to reload (renewed certificate)
  std::map<std::string, absl::Time> reload_until_ ABSL_GUARDED_BY(mu_);
  // namespace/name -> the spec.tls.customSecret content last seen (digest);
  // a change, or the first sight after a start, opens a reload window.
  std::map<std::string, size_t> custom_cert_seen_ ABSL_GUARDED_BY(mu_);
  // namespace/name -> (restore trigger, the WAL segment closed for its check)
  std::map<std::string, std::pair<std::string, std::string>> restore_switched_ ABSL_GUARDED_BY(mu_);
  // namespace/name -> the leftover claims last said in an event (until the
  // cluster is forgotten: a reconcile that applies nothing finds none)
  std::map<std::string, std::vector<std::string>> leftover_said_ ABSL_GUARDED_BY(mu_);
  // The last switchover trigger handled (its record), per cluster: a
  // reconcile whose cache does not hold that status write yet answers with
  // the record instead of handling the trigger again.
  std::map<std::string, api::PostgresSwitchoverStatus> switchover_handled_ ABSL_GUARDED_BY(mu_);
  OperatorPeer operator_peer_;
  controllers::WaitBackoff backoff_;      // re-reading the members' roles
  PodEtcdAccessKeeper etcd_access_;       // clusterRef with etcd auth: the pods' etcd user
  ServerCertMemo cert_memo_;              // stored server certificates found good
  OperatorClientCerts client_certs_;      // the operator's REST API client certificates
  PgBouncerRoleKeeper pgbouncer_role_;    // spec.proxy.pgBouncer: quorum_pooler in PostgreSQL
  PgBouncerPauseKeeper pgbouncer_pause_;  // no pooler left paused by a switchover
  std::unique_ptr<LeaderWatchSource> leader_watch_;  // set before the workers start
};

// Registers the informers (with the Secret and EtcdCluster indexes), the
// controller and its watches on `manager`. `reconciler` must outlive the run.
runtime::Controller& SetupPostgresClusterController(runtime::Manager& manager,
                                                    PostgresClusterReconciler& reconciler,
                                                    int workers);

// Scheduled backups (spec.backups.pgbackrest.repos[].schedules, backup_schedule.h):
// watches the PostgresBackups the clusters own and lets `reconciler` create
// and prune them. Call when the PostgresBackup resource is served (without
// it a cluster with schedules gets a Warning event instead).
void WatchScheduledBackups(runtime::Manager& manager, runtime::Controller& controller,
                           PostgresClusterReconciler& reconciler);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RECONCILER_H_
