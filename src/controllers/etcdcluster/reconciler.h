// EtcdClusterReconciler: makes one EtcdCluster's objects and membership
// match its spec. Level-triggered and safe to repeat or to crash in; each
// reconcile is the same list of phases, each in its own file:
//   parse    api::ParseEtcdCluster: defaults, admission rules, typed values
//   observe  observe.h, access.h: the cache (pods, StatefulSet, ConfigMap,
//            PVCs) and etcd (member list, each member's status)
//   plan     plan.h: pure; the next single safe step (src/etcd/planner.h)
//            and the objects for it
//   act      act.h: the step (on etcd or Kubernetes), then the owned objects
//            applied with server-side apply, only those that differ
//   status   status.h: pure; written last, only when it changed
//   wait     plan.h WaitFor: nothing after a Kubernetes step (the pod and
//            StatefulSet watches requeue), capped backoff (1 s .. 5 min)
//            for what only etcd shows, a slow refresh once converged
// An already-converged cluster costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different clusters.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_

#include "src/base/clock.h"
#include "src/controllers/common/cert_renewal.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/operator_peer.h"
#include "src/controllers/common/wait.h"
#include "src/controllers/etcdcluster/observe.h"
#include "src/controllers/etcdcluster/plan.h"
#include "src/controllers/etcdcluster/resources.h"
#include "src/controllers/etcdcluster/roll.h"
#include "src/controllers/etcdcluster/space.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::etcdcluster {

// Index on the EtcdCluster informer: "<ns>/<secret>" for each Secret the
// operator reads for the cluster (access.h ReadSecrets).
inline constexpr char kSecretIndex[] = "etcdcluster-secrets";

// How long a converged cluster goes before its member health is refreshed.
inline constexpr absl::Duration kHealthRefresh = absl::Seconds(60);

class EtcdClusterReconciler : public runtime::Reconciler {
 public:
  // `clock`: the time of every decision (certificate renewal, the step
  // retry gate, backoffs, how long quorum has held); tests advance a
  // FakeClock instead of waiting. It must outlive the reconciler.
  EtcdClusterReconciler(kube::Client& client, runtime::Cache& cache,
                        runtime::EventRecorder& recorder, EtcdClientFactory factory = nullptr,
                        std::string operator_image = "", Clock& clock = RealClock());
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;
  // The operator's own namespace, for the NetworkPolicy's operator peer
  // ("" when it runs outside a pod: its label in any namespace). Call before
  // the manager runs.
  void SetOperatorNamespace(std::string ns) { operator_peer_.ns = std::move(ns); }

  // The cluster as its objects are applied: the spec's, or with the etcd
  // image the members run (`live_sts`'s) when the spec's breaks an upgrade
  // rule (version_path.h; evented, the rule in `rule`).
  struct HeldImage {
    EtcdCluster cluster;
    std::string rule;
  };
  HeldImage ToApply(const Json& stored, const EtcdCluster& cluster, const EtcdView& view,
                    const Json* live_sts);

 private:
  // Drops what is kept for a cluster that is gone or going.
  void Forget(const runtime::Request& req);
  // Observe: TLS material and credentials into `cfg`; a problem is evented
  // and returned (the plan waits on it).
  absl::Status ResolveAccess(const Json& stored, const EtcdCluster& cluster,
                             etcd::ClientConfig& cfg);
  // Act: the planned step; enables auth once converged.
  absl::Status TakeStep(const Json& stored, const EtcdCluster& cluster, const Plan& plan,
                        etcd::Client* etcd_client, const std::string& root_password);
  // Events a claim template change (controllers::PrepareStatefulSet).
  void RecordClaims(const Json& stored, const controllers::ClaimTemplateOutcome& claims);
  // The plan's step (logged and evented), unless the same membership step
  // failed before and its retry is not due: then nothing is tried, `held`
  // says how long until it is, and the status is Unavailable. A failure
  // holds the step back for the backoff (retry_), whatever events come.
  absl::Status TakeStepWhenDue(const runtime::Request& req, const Json& stored,
                               const EtcdCluster& cluster, const Plan& plan,
                               etcd::Client* etcd_client, const std::string& root_password,
                               std::optional<absl::Duration>* held);
  // The managed certificates (certificates.h): nullopt to go on, with when
  // to look again in `renew_at` (the next renewal, or a backoff after a
  // problem that is evented: a Secret in the way, a lost CA — the members
  // keep what they have); else what to return now: after a write (the owned
  // Secrets' events bring the next reconcile) or an API error.
  std::optional<absl::StatusOr<runtime::Result>> IssueCertificates(
      const runtime::Request& req, const Json& stored, const EtcdCluster& cluster, absl::Time now,
      std::optional<absl::Time>* renew_at);
  // Logs and events the step's outcome.
  void RecordStep(const Json& stored, const Plan& plan, const absl::Status& step);
  SpaceOutcome HousekeepSpace(const Json& stored, const EtcdCluster& cluster, const Plan& plan,
                              const absl::Status& step, EtcdConnection& etcd);
  // Wait: what to return after the step.
  absl::StatusOr<runtime::Result> Next(const runtime::Request& request, const Plan& plan,
                                       const absl::Status& step);

  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  Clock& clock_;
  EtcdClientFactory factory_;
  // The image of the restore init containers (spec.bootstrap.restore).
  const std::string operator_image_;
  controllers::WaitBackoff backoff_;
  controllers::RetryGate retry_;             // failed membership steps, held until their retry
  controllers::CertRenewalMemo cert_memo_;   // managed certificates found good
  RolledPods rolled_;                        // pods the roll deleted, until the cache shows it
  controllers::OperatorPeer operator_peer_;  // admitted by the NetworkPolicy
};

// Registers the informers, the controller and its watches on `manager`.
// `reconciler` must outlive the manager's run.
runtime::Controller& SetupEtcdClusterController(runtime::Manager& manager,
                                                EtcdClusterReconciler& reconciler, int workers);

// The pods of the PostgresClusters that reference a cluster
// (spec.patroni.dcs.etcd.clusterRef) reach its client port through its
// NetworkPolicy: indexes the PostgresClusters (kPostgresClientIndex) and
// reconciles the cluster a PostgresCluster names when one is created or
// deleted (the reference cannot change). Only when the PostgresCluster
// resource is served; without it no PostgresCluster is admitted.
void WatchPostgresClients(runtime::Manager& manager, runtime::Controller& controller);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_
