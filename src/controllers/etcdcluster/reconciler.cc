#include "src/controllers/etcdcluster/reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_types.h"
#include "src/base/failpoint.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/common/reconcile_log.h"
#include "src/controllers/common/stale_dependents.h"
#include "src/controllers/etcdcluster/access.h"
#include "src/controllers/etcdcluster/act.h"
#include "src/controllers/etcdcluster/adopt.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/controllers/etcdcluster/certificates.h"
#include "src/controllers/etcdcluster/space.h"
#include "src/controllers/etcdcluster/status.h"
#include "src/controllers/etcdcluster/version_path.h"
#include "src/runtime/apply.h"

namespace quorum::etcdcluster {
namespace {

// A Ready that waits out kQuorumSettle (status.h) needs a look when the wait
// ends, whatever else the reconcile waits for.
absl::StatusOr<runtime::Result> LookAgainForReady(absl::StatusOr<runtime::Result> next,
                                                  absl::Duration recheck) {
  if (!next.ok() || recheck == absl::ZeroDuration()) return next;
  if (next->requeue && next->requeue_after == absl::ZeroDuration()) return next;  // at once
  if (next->requeue_after == absl::ZeroDuration() || next->requeue_after > recheck) {
    next->requeue_after = recheck;
  }
  return next;
}

using api::kEtcdClusterKind;
using runtime::ObjectPtr;
using runtime::Result;

bool AnyPodHasIp(const World& w) {
  for (const PodInfo& p : w.pods) {
    if (p.has_ip) return true;
  }
  return false;
}

// The Storage condition's input: the claim template outcome, else the
// progress of a resize read from the PVCs.
StorageState StorageStateOf(const runtime::Cache& cache, const EtcdCluster& cluster,
                            const controllers::ClaimTemplateOutcome& claims) {
  if (!claims.reason.empty()) {
    return {.reason = claims.reason, .message = claims.message, .ok = false};
  }
  const std::string name = NamesOf(cluster).statefulset;
  ObjectPtr sts = cache.Get(kStatefulSets, cluster.metadata.ns, name);
  if (sts == nullptr) {
    const api::Condition* c = api::FindCondition(cluster.status, "Storage");
    if (c == nullptr || c->status != "False") return {};
    return {.reason = "Recreating", .message = "StatefulSet " + name + " is being re-created"};
  }
  const controllers::ResizeProgress p =
      controllers::ResizeProgressOf(controllers::ClaimsOf(cache, *sts));
  if (p.resizing > 0) return {.reason = "Resizing", .message = p.message, .ok = false};
  return {};
}

// A pod a roll step deleted that the cache still shows as it was counts as
// being deleted (roll.h, RolledPods).
void MarkRolledPods(RolledPods& rolled, const std::string& key, World& world) {
  std::vector<std::string> live;
  for (const PodInfo& p : world.pods) {
    if (!p.deleting) live.push_back(p.uid);
  }
  const std::set<std::string> shown = rolled.StillShown(key, live);
  for (PodInfo& p : world.pods) {
    if (!shown.contains(p.uid)) continue;
    p.deleting = true;
    // An emptyDir pod's UID is its storage's: it is no member's any more.
    if (auto s = world.storage_uids.find(p.ordinal);
        s != world.storage_uids.end() && s->second == p.uid) {
      world.storage_uids.erase(s);
    }
  }
}

bool IsMembershipStep(const etcd::Action& a) {
  return a.kind != etcd::Action::kNone && a.kind != etcd::Action::kWait;
}

// "etcdcluster/before-<Step>" and "etcdcluster/after-<Step>" around each
// membership step (after: once etcd and the StatefulSet reflect it); see
// src/base/failpoint.h.
void StepFailpoint(const char* when, const Plan& plan) {
  if (!IsMembershipStep(plan.action)) return;
  Failpoint(absl::StrCat("etcdcluster/", when, "-", std::string(etcd::KindName(plan.action.kind))));
}

// What the backoff waits on after `step` (wait.h): the step, settling or not.
std::string StepWaitFor(const Plan& plan, const absl::Status& step) {
  return std::string(etcd::KindName(plan.action.kind)) + ": " + plan.action.reason +
         (step.ok() ? "" : " (settling)");
}

StatusInput StatusInputFor(const EtcdCluster& cluster, const EtcdView& view, const World& world,
                           const Plan& plan, const absl::Status& step, const SpaceOutcome& space,
                           absl::Time now) {
  return {.cluster = &cluster,
          .etcd = &view,
          .ready_pods = plan.ready_pods,
          .statefulset_replicas = world.statefulset_replicas,
          .action_reason = plan.action.reason,
          .converged = plan.action.kind == etcd::Action::kNone,
          // A failed membership step is evented; enabling auth is a problem.
          .problem = step.ok() || IsMembershipStep(plan.action) ? plan.problem
                                                                : std::string(step.message()),
          .storage_uids = world.storage_uids,
          .space_alarm = space.alarm,
          .space_message = space.message,
          .now = now};
}

}  // namespace

EtcdClusterReconciler::EtcdClusterReconciler(kube::Client& client, runtime::Cache& cache,
                                             runtime::EventRecorder& recorder,
                                             EtcdClientFactory factory, std::string operator_image,
                                             Clock& clock)
    : client_(client),
      cache_(cache),
      recorder_(recorder),
      clock_(clock),
      factory_(std::move(factory)),
      operator_image_(std::move(operator_image)),
      backoff_(clock),
      retry_(clock) {
  if (!factory_) factory_ = [](etcd::ClientConfig c) { return etcd::Client::Create(std::move(c)); };
}

void EtcdClusterReconciler::Forget(const runtime::Request& req) {
  backoff_.Reset(req.Key());
  retry_.Reset(req.Key());
  rolled_.Forget(req.Key());
  const api::ManagedTlsNames tls = api::ManagedTlsNamesOf(req.name);
  for (const std::string& s : {tls.peer, tls.server, tls.client}) {
    cert_memo_.Forget(req.ns + "/" + s);
  }
}

absl::StatusOr<Result> EtcdClusterReconciler::Reconcile(const runtime::Request& req) {
  controllers::ReconcileLogScope log("etcdcluster", req);
  const absl::Time now = clock_.Now();  // once: every decision below is made at this time
  ObjectPtr stored = cache_.Get(kEtcdClusters, req.ns, req.name);
  if (stored == nullptr || controllers::BeingDeleted(*stored)) {
    Forget(req);
    return Result{};
  }
  absl::StatusOr<EtcdCluster> cluster = api::ParseEtcdCluster(*stored);  // parse
  if (!cluster.ok()) {
    recorder_.Warning(*stored, "InvalidSpec", std::string(cluster.status().message()));
    return runtime::TerminalError(cluster.status());
  }
  // An earlier EtcdCluster of this name: its objects go first.
  const std::string stale = controllers::StaleDependent(
      cache_, {kStatefulSets, kConfigMaps, kServices, kPdbs, kNetworkPolicies, kSecrets},
      {.kind = kEtcdClusterKind, .ns = req.ns, .name = req.name, .uid = cluster->metadata.uid});
  if (!stale.empty()) {
    recorder_.Normal(*stored, "WaitingForEarlierObjects",
                     stale +
                         " belongs to an earlier EtcdCluster of this name; waiting for the "
                         "garbage collector to delete it");
    return Result{.requeue_after = backoff_.Next(req.Key(), "earlier objects: " + stale)};
  }
  std::optional<absl::Time> renew_at;
  if (auto done = IssueCertificates(req, *stored, *cluster, now, &renew_at)) return *done;
  // Observe. A cluster another operator ran keeps its peer auto TLS (adopt.h).
  ObjectPtr live_sts = cache_.Get(kStatefulSets, req.ns, NamesOf(*cluster).statefulset);
  *cluster = WithInferredPeerAutoTls(*std::move(cluster), live_sts.get(), EtcdView{});
  World world = ObserveWorld(cache_, *cluster, now);
  MarkRolledPods(rolled_, req.Key(), world);
  etcd::ClientConfig cfg;
  absl::Status access = ResolveAccess(*stored, *cluster, cfg);
  EtcdConnection etcd;
  if (access.ok() && AnyPodHasIp(world)) {
    etcd = ObserveMembers(factory_, cfg, TopologyOf(*cluster), world.statefulset_replicas);
    *cluster = WithInferredPeerAutoTls(*std::move(cluster), nullptr, etcd.view);
  }
  const HeldImage to_apply = ToApply(*stored, *cluster, etcd.view, live_sts.get());
  // Plan (pure), act, status, wait.
  const Plan plan = PlanStep(PlanInputFor(*cluster, world, etcd.view, access));
  std::optional<absl::Duration> held;  // a failed step whose retry is not due yet
  const absl::Status step =
      TakeStepWhenDue(req, *stored, *cluster, plan, etcd.client.get(), cfg.password, &held);
  controllers::ClaimTemplateOutcome claims;
  absl::Status applied = ApplyOwnedObjects(client_, cache_, to_apply.cluster, plan, step.ok(),
                                           &claims, operator_image_, operator_peer_);
  // A refused write is reported in status and evented before it is retried;
  // any other failure (unavailable, a race) is only retried.
  const bool refused = runtime::IsRefusedWrite(applied);
  if (!applied.ok() && !refused) return applied;
  if (step.ok()) StepFailpoint("after", plan);
  RecordClaims(*stored, claims);
  if (!plan.problem_reason.empty()) recorder_.Warning(*stored, plan.problem_reason, plan.problem);
  const SpaceOutcome space = HousekeepSpace(*stored, *cluster, plan, step, etcd);
  StatusInput status_input = StatusInputFor(*cluster, space.view, world, plan, step, space, now);
  status_input.storage = StorageStateOf(cache_, *cluster, claims);
  status_input.version_rule = to_apply.rule;
  // TakeStep turns auth on (or finds it on) when nothing else is to be done.
  status_input.auth_on = AuthEnabledInSpec(*cluster) && plan.action.kind == etcd::Action::kNone &&
                         step.ok() && etcd.client != nullptr;
  if (refused) status_input.problem = std::string(applied.message());
  const api::EtcdClusterStatus status = BuildStatus(status_input);
  if (absl::Status s = WriteStatus(client_, *cluster, status); !s.ok()) return s;
  if (refused) {
    recorder_.Warning(*stored, "ApplyRefused", std::string(applied.message()));
    return applied;  // retried with the queue's backoff
  }
  absl::StatusOr<Result> next =
      held.has_value() ? Result{.requeue_after = *held}
      : space.busy && step.ok()
          ? Result{.requeue_after = backoff_.Next(req.Key(), "space: " + space.message)}
          : Next(req, plan, step);
  next = LookAgainForReady(std::move(next), RecheckReadyAfter(status, status_input.now));
  return renew_at ? LookAgainForReady(std::move(next),
                                      std::max(*renew_at - status_input.now, absl::Seconds(1)))
                  : next;
}

EtcdClusterReconciler::HeldImage EtcdClusterReconciler::ToApply(const Json& stored,
                                                                const EtcdCluster& cluster,
                                                                const EtcdView& view,
                                                                const Json* live_sts) {
  // Members answer but the cache has no StatefulSet: one made by another
  // operator (aenix's carries no label the cache selects); its image is what
  // runs, read once through the API server.
  std::optional<Json> fetched;
  const bool answered = std::any_of(view.members.begin(), view.members.end(),
                                    [](const MemberStatus& m) { return m.status.has_value(); });
  if (live_sts == nullptr && answered) {
    absl::StatusOr<Json> got =
        client_.Get(kStatefulSets, cluster.metadata.ns, NamesOf(cluster).statefulset);
    if (got.ok()) fetched = *std::move(got);
  }
  const VersionGate gate =
      JudgeVersionPath(cluster, view, fetched.has_value() ? &*fetched : live_sts);
  if (gate.rule.empty()) return {.cluster = cluster};
  recorder_.Warning(stored, "UnsupportedVersionPath", gate.rule);
  return {.cluster = WithEtcdImage(cluster, gate.held), .rule = gate.rule};
}

std::optional<absl::StatusOr<Result>> EtcdClusterReconciler::IssueCertificates(
    const runtime::Request& req, const Json& stored, const EtcdCluster& cluster, absl::Time now,
    std::optional<absl::Time>* renew_at) {
  absl::StatusOr<CertificatesOutcome> certs =
      EnsureCertificates(client_, cache_, recorder_, stored, cluster, now, cert_memo_);
  if (!certs.ok()) {
    recorder_.Warning(stored, "CertificatesNotReady", std::string(certs.status().message()));
    if (!absl::IsFailedPrecondition(certs.status())) return certs.status();
    const absl::Duration again = backoff_.Next(req.Key(), "certificates");
    // A Secret in the way, or a lost CA. Without every certificate no member
    // is made; with them (a running cluster) the members keep what they
    // have and the rest of the reconcile goes on.
    const api::ManagedTlsNames n = api::ManagedTlsNamesOf(cluster.metadata.name);
    for (const std::string& leaf : {n.peer, n.server, n.client}) {
      if (cache_.Get(kSecrets, cluster.metadata.ns, leaf) == nullptr) {
        return Result{.requeue_after = again};
      }
    }
    *renew_at = now + again;
    return std::nullopt;
  }
  if (certs->wrote) return Result{};  // the owned Secrets' events come next
  *renew_at = certs->renew_at;
  return std::nullopt;
}

// The backend's space (src/controllers/etcdcluster/space.h), only when the
// membership step changed nothing; its steps are evented.
SpaceOutcome EtcdClusterReconciler::HousekeepSpace(const Json& stored, const EtcdCluster& cluster,
                                                   const Plan& plan, const absl::Status& step,
                                                   EtcdConnection& etcd) {
  if (!step.ok() || IsMembershipStep(plan.action) || etcd.client == nullptr ||
      !etcd.view.members_known) {
    return SpaceOutcome{.view = etcd.view};
  }
  SpaceOutcome space = Housekeep(*etcd.client, std::move(etcd.view), QuotaOf(cluster));
  for (const SpaceEvent& e : space.events) {
    if (e.warning) {
      recorder_.Warning(stored, e.reason, e.message);
    } else {
      recorder_.Normal(stored, e.reason, e.message);
    }
  }
  return space;
}

absl::Status EtcdClusterReconciler::ResolveAccess(const Json& stored, const EtcdCluster& cluster,
                                                  etcd::ClientConfig& cfg) {
  if (absl::Status s = ReadTlsMaterial(cache_, cluster, cfg); !s.ok()) {
    recorder_.Warning(stored, "SecretMissing", std::string(s.message()));
    return s;
  }
  if (!AuthEnabledInSpec(cluster)) return absl::OkStatus();
  absl::Status s = ReadAuthCredentials(client_, cache_, cluster, cfg);
  if (!s.ok()) recorder_.Warning(stored, "AuthNotReady", std::string(s.message()));
  return s;
}

absl::Status EtcdClusterReconciler::TakeStep(const Json& stored, const EtcdCluster& cluster,
                                             const Plan& plan, etcd::Client* etcd_client,
                                             const std::string& root_password) {
  if (plan.action.kind == etcd::Action::kDeletePod) {
    return DeleteMemberPod(client_, cluster, plan.action.ordinal);
  }
  if (plan.action.kind == etcd::Action::kRollPod ||
      plan.action.kind == etcd::Action::kReplaceMember) {
    absl::Status s = plan.action.kind == etcd::Action::kReplaceMember
                         ? ActOnEtcd(etcd_client, plan.action)
                         : absl::OkStatus();
    // Not found: an earlier try removed it (its answer was lost); the pod
    // still has to go.
    if (absl::IsNotFound(s)) s = absl::OkStatus();
    if (s.ok()) s = RollMemberPod(client_, cluster, plan.action);
    if (s.ok())
      rolled_.Deleted(cluster.metadata.ns + "/" + cluster.metadata.name, plan.action.pod_uid);
    return s;
  }
  if (plan.action.kind != etcd::Action::kNone) return ActOnEtcd(etcd_client, plan.action);
  if (etcd_client == nullptr || !AuthEnabledInSpec(cluster)) return absl::OkStatus();
  absl::StatusOr<bool> enabled = EnsureAuthEnabled(*etcd_client, root_password);
  if (!enabled.ok()) {
    const absl::Status s(enabled.status().code(), "enabling etcd authentication: " +
                                                      std::string(enabled.status().message()));
    recorder_.Warning(stored, "AuthEnableFailed", std::string(s.message()));
    return s;
  }
  if (*enabled) {
    spdlog::info("etcd authentication enabled");
    recorder_.Normal(
        stored, "AuthEnabled",
        "etcd authentication is on; root credentials are in Secret " + AuthSecretName(cluster));
  }
  return absl::OkStatus();
}

void EtcdClusterReconciler::RecordClaims(const Json& stored,
                                         const controllers::ClaimTemplateOutcome& claims) {
  if (claims.reason.empty() || claims.reason == "Waiting") return;
  if (claims.warning) {
    recorder_.Warning(stored, "Storage" + claims.reason, claims.message);
  } else {
    recorder_.Normal(stored, "Storage" + claims.reason, claims.message);
  }
}

absl::Status EtcdClusterReconciler::TakeStepWhenDue(const runtime::Request& req, const Json& stored,
                                                    const EtcdCluster& cluster, const Plan& plan,
                                                    etcd::Client* etcd_client,
                                                    const std::string& root_password,
                                                    std::optional<absl::Duration>* held) {
  const bool membership = IsMembershipStep(plan.action);
  const std::string what = absl::StrCat(std::string(etcd::KindName(plan.action.kind)), " ",
                                        plan.action.ordinal, " ", plan.action.member_id);
  if (membership) {
    if (std::optional<controllers::RetryGate::Held> wait = retry_.Wait(req.Key(), what)) {
      *held = wait->remaining;
      return absl::UnavailableError("waiting to retry after: " + wait->error);
    }
  }
  StepFailpoint("before", plan);
  absl::Status step = TakeStep(stored, cluster, plan, etcd_client, root_password);
  if (membership && step.ok()) retry_.Reset(req.Key());
  if (membership && !step.ok()) {
    retry_.Failed(req.Key(), what, std::string(step.message()),
                  backoff_.Next(req.Key(), StepWaitFor(plan, step)));
  }
  RecordStep(stored, plan, step);
  return step;
}

void EtcdClusterReconciler::RecordStep(const Json& stored, const Plan& plan,
                                       const absl::Status& step) {
  if (!IsMembershipStep(plan.action)) return;
  const std::string kind(etcd::KindName(plan.action.kind));
  if (step.ok()) {
    spdlog::info("membership step {}: {}", kind, plan.action.reason);
    recorder_.Normal(stored, kind, plan.action.reason);
  } else {
    spdlog::warn("membership step {} failed: {}: {}", kind, plan.action.reason,
                 std::string(step.message()));
    recorder_.Warning(stored, kind + "Failed",
                      plan.action.reason + ": " + std::string(step.message()));
  }
}

absl::StatusOr<Result> EtcdClusterReconciler::Next(const runtime::Request& req, const Plan& plan,
                                                   const absl::Status& step) {
  const std::string key = req.Key();
  if (!step.ok() && !IsSettling(step)) return step;  // retried with the queue's backoff
  if (!step.ok() || plan.wait_for == WaitFor::kEtcd) {
    absl::Duration after = backoff_.Next(key, StepWaitFor(plan, step));
    // A clock that runs out changes the plan with no event: look just after.
    if (step.ok() && plan.action.recheck_after > absl::ZeroDuration()) {
      after = std::min(after, plan.action.recheck_after + absl::Seconds(1));
    }
    return Result{.requeue_after = after};
  }
  if (plan.wait_for == WaitFor::kSecret) {
    return Result{.requeue_after = backoff_.Next(key, plan.problem, controllers::kMaxSecretWait)};
  }
  backoff_.Reset(key);
  retry_.Reset(key);
  if (plan.wait_for == WaitFor::kRefresh) {
    return Result{.requeue_after = controllers::Spread(kHealthRefresh, key)};
  }
  return Result{};  // the pod and StatefulSet watches bring the next change
}

runtime::Controller& SetupEtcdClusterController(runtime::Manager& manager,
                                                EtcdClusterReconciler& reconciler, int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& clusters = cache.Informer(kEtcdClusters);
  clusters.AddIndex(kSecretIndex, [](const Json& obj) {
    std::vector<std::string> keys;
    absl::StatusOr<EtcdCluster> c = api::DecodeEtcdCluster(obj);
    if (!c.ok()) return keys;
    for (const std::string& s : ReadSecrets(*c)) keys.push_back(c->metadata.ns + "/" + s);
    return keys;
  });
  runtime::Controller& c = manager.AddController("etcdcluster", reconciler, {.workers = workers});
  c.Watch(clusters, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  auto owner = runtime::EnqueueRequestForOwner(std::string(api::kEtcdGroup),
                                               std::string(api::kEtcdClusterKind));
  // The reconciler reads none of these objects' status (pods tell it how
  // members are): the StatefulSet controller's status writes while pods come
  // and go would only reconcile every cluster once more per write.
  for (const auto& gvr : {kStatefulSets, kServices, kConfigMaps, kPdbs, kNetworkPolicies}) {
    c.Watch(cache.Informer(gvr), owner, {runtime::IgnoreStatusOnlyChangesPredicate()});
  }
  // Pods are owned by the StatefulSet: map them by their instance label.
  c.Watch(cache.Informer(kPods),
          [](const Json& pod) {
            const Json labels = pod["metadata"].value("labels", Json::object());
            if (labels.value("app.kubernetes.io/name", "") != "etcd")
              return std::vector<runtime::Request>{};
            return std::vector<runtime::Request>{
                {json_access::Str(json_access::At(pod, {"metadata", "namespace"})),
                 labels.value("app.kubernetes.io/instance", "")}};
          },
          // Only what the cache keeps of a pod (StripPod) counts.
          {runtime::ContentChangedPredicate()});
  // A Secret the operator reads (TLS material, the root credentials) that
  // appears or changes reconciles the clusters that name it: a missing
  // Secret is waited for, not polled.
  auto key_of = [](const Json& o) {
    return std::vector<std::string>{
        json_access::Str(json_access::At(o, {"metadata", "namespace"})) + "/" +
        json_access::Str(json_access::At(o, {"metadata", "name"}))};
  };
  c.Watch(cache.Informer(kSecrets),
          [owner, index = runtime::EnqueueRequestsFromIndex(clusters.store(), kSecretIndex,
                                                            key_of)](const Json& secret) {
            std::vector<runtime::Request> out = index(secret);
            for (runtime::Request& r : owner(secret)) out.push_back(std::move(r));
            return out;
          },
          {runtime::ResourceVersionChangedPredicate()});
  cache.Informer(kPvcs);
  return c;
}

void WatchPostgresClients(runtime::Manager& manager, runtime::Controller& controller) {
  // The reference read straight from the object: no defaults are needed, and
  // the index runs on every PostgresCluster event.
  auto referenced = [](const Json& pg) -> std::string {
    const Json* ref =
        json_access::Path(&pg, {"spec", "patroni", "dcs", "etcd", "clusterRef", "name"});
    if (ref == nullptr || !ref->is_string() || ref->get<std::string>().empty()) return "";
    return ref->get<std::string>();
  };
  runtime::SharedInformer& postgres = manager.cache().Informer(kPostgresClusters);
  postgres.AddIndex(kPostgresClientIndex, [referenced](const Json& pg) {
    const std::string ref = referenced(pg);
    if (ref.empty()) return std::vector<std::string>{};
    return std::vector<std::string>{
        json_access::Str(json_access::At(pg, {"metadata", "namespace"})) + "/" + ref};
  });
  runtime::Predicate created_or_deleted;
  created_or_deleted.update = [referenced](const Json& old_pg, const Json& new_pg) {
    return referenced(old_pg) != referenced(new_pg);
  };
  controller.Watch(postgres,
                   [referenced](const Json& pg) {
                     const std::string ref = referenced(pg);
                     if (ref.empty()) return std::vector<runtime::Request>{};
                     return std::vector<runtime::Request>{
                         {json_access::Str(json_access::At(pg, {"metadata", "namespace"})), ref}};
                   },
                   {created_or_deleted});
}

}  // namespace quorum::etcdcluster
