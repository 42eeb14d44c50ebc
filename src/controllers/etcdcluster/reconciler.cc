#include "src/controllers/etcdcluster/reconciler.h"

#include <spdlog/spdlog.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_validation.h"
#include "src/controllers/etcdcluster/auth.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/controllers/etcdcluster/observe.h"
#include "src/controllers/etcdcluster/status.h"
#include "src/kube/errors.h"
#include "src/runtime/apply.h"
#include "src/runtime/certs.h"
#include "src/runtime/random.h"

namespace quorum::etcdcluster {
namespace {

using runtime::ObjectPtr;
using runtime::Result;

// A Secret's key, decoded; empty when absent.
std::string SecretKey(const ObjectPtr& secret, const std::string& key) {
  if (secret == nullptr) return "";
  const Json data = secret->value("data", Json::object());
  std::string out;
  if (!data.contains(key) || !data[key].is_string() ||
      !absl::Base64Unescape(data[key].get<std::string>(), &out)) {
    return "";
  }
  return out;
}

// Reads the operator's TLS material for etcd; a problem is returned as a
// human sentence (never with secret data).
std::string EtcdTls(const runtime::Cache& cache, const Json& cluster, etcd::ClientConfig& cfg) {
  const TlsMode tls = TlsOf(cluster);
  const Names n = NamesOf(cluster);
  const Json spec_tls =
      cluster["spec"].value("security", Json::object()).value("tls", Json::object());
  if (tls.server) {
    const std::string name = spec_tls.value("serverTrustedCASecret", "");
    if (!name.empty()) {
      cfg.ca_pem = SecretKey(cache.Get(kSecrets, n.ns, name), "ca.crt");
      if (cfg.ca_pem.empty()) {
        return "Secret " + name +
               " (spec.security.tls.serverTrustedCASecret) is missing or has no ca.crt";
      }
    }
  }
  if (tls.client) {
    const std::string name = spec_tls.value("clientSecret", "");
    const ObjectPtr secret = cache.Get(kSecrets, n.ns, name);
    cfg.cert_pem = SecretKey(secret, "tls.crt");
    cfg.key_pem = SecretKey(secret, "tls.key");
    if (cfg.cert_pem.empty() || cfg.key_pem.empty()) {
      return "Secret " + name +
             " (spec.security.tls.clientSecret) is missing or lacks tls.crt/tls.key";
    }
  }
  return "";
}

// Storage identity per ordinal: the PVC's UID, or the pod's UID for emptyDir.
std::map<int, std::string> StorageUids(const runtime::Cache& cache, const Json& cluster,
                                       const std::vector<ObjectPtr>& pods) {
  std::map<int, std::string> out;
  const Names n = NamesOf(cluster);
  const bool empty_dir = cluster["spec"].value("storage", Json::object()).contains("emptyDir");
  for (const ObjectPtr& pod : pods) {
    const std::string pod_name = (*pod)["metadata"].value("name", "");
    const int k = PodOrdinal(n.cluster, pod_name);
    if (k < 0) continue;
    if (empty_dir) {
      out[k] = (*pod)["metadata"].value("uid", "");
    } else if (ObjectPtr pvc = cache.Get({"", "v1", "persistentvolumeclaims"}, n.ns,
                                         std::string(kDataVolume) + "-" + pod_name)) {
      out[k] = (*pvc)["metadata"].value("uid", "");
    }
  }
  return out;
}

BootstrapState StateFrom(const Json& cluster, const ObjectPtr& configmap, const EtcdView& view) {
  BootstrapState state;
  if (view.members_known) {
    state.state = "existing";
    const std::string name = NamesOf(cluster).cluster;
    for (const MemberStatus& ms : view.members) {
      for (int k = 0; k < 1024; ++k) {  // place the member by its peer URL
        if (!ms.member.peer_urls.empty() && ms.member.peer_urls.front() == PeerUrl(cluster, k)) {
          state.members.emplace_back(MemberName(cluster, k), PeerUrl(cluster, k));
          break;
        }
        if (k > DesiredReplicas(cluster) + 8) break;
      }
    }
    return state;
  }
  if (configmap != nullptr) {
    const Json data = configmap->value("data", Json::object());
    state.state = data.value("ETCD_INITIAL_CLUSTER_STATE", "new");
    for (absl::string_view entry :
         absl::StrSplit(data.value("ETCD_INITIAL_CLUSTER", ""), ',', absl::SkipEmpty())) {
      const size_t eq = entry.find('=');
      if (eq != absl::string_view::npos) {
        state.members.emplace_back(std::string(entry.substr(0, eq)),
                                   std::string(entry.substr(eq + 1)));
      }
    }
  }
  if (state.members.empty())
    state.members.emplace_back(MemberName(cluster, 0), PeerUrl(cluster, 0));
  return state;
}

// With enableAuth: the root credentials for `cfg`, creating their Secret the
// first time. Returns a problem sentence (never secret data), or "".
std::string AuthCredentials(kube::Client& client, const runtime::Cache& cache, const Json& cluster,
                            etcd::ClientConfig& cfg) {
  if (!cfg.cert_pem.empty()) {
    absl::StatusOr<runtime::CertificateInfo> cert = runtime::InspectCertificate(cfg.cert_pem);
    if (!cert.ok()) return "spec.security.tls.clientSecret: tls.crt holds no PEM certificate";
    if (!cert->common_name.empty()) {
      return "spec.security.tls.clientSecret: the certificate's subject has CommonName \"" +
             cert->common_name +
             "\"; with enableAuth etcd's JSON gateway refuses such certificates, so issue the "
             "operator's client certificate with an empty CommonName";
    }
  }
  const Names n = NamesOf(cluster);
  const std::string name = AuthSecretName(cluster);
  ObjectPtr secret = cache.Get(kSecrets, n.ns, name);
  if (secret == nullptr) {
    absl::StatusOr<std::string> password = runtime::RandomPassword();
    if (!password.ok()) return "cannot generate the root password";
    absl::StatusOr<Json> made = client.Create(kSecrets, n.ns, BuildAuthSecret(cluster, *password));
    if (absl::IsAlreadyExists(made.status())) made = client.Get(kSecrets, n.ns, name);
    if (!made.ok()) {
      return "cannot create Secret " + name + ": " + std::string(made.status().message());
    }
    secret = std::make_shared<const Json>(*std::move(made));
  }
  cfg.username = SecretKey(secret, "username");
  cfg.password = SecretKey(secret, "password");
  if (cfg.username.empty() || cfg.password.empty())
    return "Secret " + name +
           " lacks username/password; delete it only together with etcd's root user";
  return "";
}

}  // namespace

EtcdClusterReconciler::EtcdClusterReconciler(kube::Client& client, runtime::Cache& cache,
                                             runtime::EventRecorder& recorder,
                                             EtcdClientFactory factory)
    : client_(client), cache_(cache), recorder_(recorder), factory_(std::move(factory)) {
  if (!factory_) factory_ = [](etcd::ClientConfig c) { return etcd::Client::Create(std::move(c)); };
}

absl::StatusOr<Result> EtcdClusterReconciler::Reconcile(const runtime::Request& req) {
  ObjectPtr stored = cache_.Get(kEtcdClusters, req.ns, req.name);
  if (stored == nullptr || (*stored)["metadata"].contains("deletionTimestamp")) return Result{};
  Json cluster = *stored;
  api::DefaultEtcdCluster(cluster);  // in case the defaulting webhook is not installed
  const Names n = NamesOf(cluster);

  if (std::vector<api::FieldError> errors = api::ValidateEtcdCluster(cluster, nullptr);
      !errors.empty()) {
    const std::string message = api::JoinFieldErrors(errors);
    recorder_.Warning(*stored, "InvalidSpec", message);
    return runtime::TerminalError(absl::InvalidArgumentError(message));
  }

  // 1. Observe.
  ObjectPtr sts = cache_.Get(kStatefulSets, n.ns, n.statefulset);
  const int sts_replicas = sts ? (*sts)["spec"].value("replicas", 0) : 0;
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : cache_.ByInstance(kPods, n.ns, n.cluster)) {
    const Json labels = (*pod)["metadata"].value("labels", Json::object());
    if (labels.value("app.kubernetes.io/instance", "") == n.cluster &&
        labels.value("app.kubernetes.io/name", "") == "etcd") {
      pods.push_back(pod);
    }
  }
  etcd::ClientConfig cfg;
  std::string problem = EtcdTls(cache_, cluster, cfg);
  if (!problem.empty()) recorder_.Warning(*stored, "SecretMissing", problem);
  if (problem.empty() && AuthEnabledInSpec(cluster)) {
    problem = AuthCredentials(client_, cache_, cluster, cfg);
    if (!problem.empty()) recorder_.Warning(*stored, "AuthNotReady", problem);
  }
  EtcdView view;
  std::unique_ptr<etcd::Client> etcd_client;
  bool any_pod = false;
  for (const ObjectPtr& pod : pods)
    any_pod |= pod->value("status", Json::object()).contains("podIP");
  if (problem.empty() && any_pod) {
    for (int k = 0; k < std::max(sts_replicas, 1); ++k)
      cfg.endpoints.push_back(MemberClientUrl(cluster, k));
    auto c = factory_(cfg);
    if (c.ok()) {
      etcd_client = *std::move(c);
      view = ObserveEtcd(*etcd_client);
    } else {
      view.error = std::string(c.status().message());
    }
  }
  const std::map<int, std::string> storage = StorageUids(cache_, cluster, pods);
  const int count = std::max(sts_replicas, DesiredReplicas(cluster));
  // An emptyDir cluster with no pod left has no data anywhere: scaling it up
  // again bootstraps a new cluster instead of waiting for members that are gone.
  const bool empty_dir = cluster["spec"].value("storage", Json::object()).contains("emptyDir");
  const bool bootstrapped =
      StatusInitialized(cluster) && !(empty_dir && sts_replicas == 0 && pods.empty());
  etcd::Observation obs =
      BuildObservation(cluster, sts_replicas, bootstrapped, view,
                       ObservePods(cluster, pods, storage, RecordedStorageUids(cluster), count));
  const etcd::Action action = problem.empty()
                                  ? etcd::NextAction(obs)
                                  : etcd::Action{.kind = etcd::Action::kWait, .reason = problem};

  // 2. Decide the objects for this step.
  int replicas = sts_replicas;
  BootstrapState state = StateFrom(cluster, cache_.Get(kConfigMaps, n.ns, n.state_configmap), view);
  absl::Status step = absl::OkStatus();
  switch (action.kind) {
    case etcd::Action::kBootstrap:
      replicas = 1;
      state = {.state = "new", .members = {{MemberName(cluster, 0), PeerUrl(cluster, 0)}}};
      break;
    case etcd::Action::kScaleStatefulSet:
      replicas = action.replicas;
      break;
    case etcd::Action::kAddLearner: {
      auto added = etcd_client->MemberAdd({action.peer_url}, /*is_learner=*/true);
      step = added.status();
      if (added.ok()) {
        state.state = "existing";
        state.members.emplace_back(MemberName(cluster, action.ordinal), action.peer_url);
      }
      break;
    }
    case etcd::Action::kPromote:
      step = etcd_client->MemberPromote(action.member_id);
      break;
    case etcd::Action::kMoveLeader:
      step = etcd_client->MoveLeader(action.member_id);
      break;
    case etcd::Action::kRemoveMember:
      step = etcd_client->MemberRemove(action.member_id);
      break;
    case etcd::Action::kDeletePod: {
      // The pod's old data (an earlier failed start wrote the removed
      // member's ID there) must go with it, or the member never rejoins.
      const std::string pod = MemberName(cluster, action.ordinal);
      if (!cluster["spec"].value("storage", Json::object()).contains("emptyDir")) {
        step = client_.Delete({"", "v1", "persistentvolumeclaims"}, n.ns,
                              std::string(kDataVolume) + "-" + pod);
        if (absl::IsNotFound(step)) step = absl::OkStatus();
      }
      if (step.ok()) step = client_.Delete(kPods, n.ns, pod);
      if (absl::IsNotFound(step)) step = absl::OkStatus();
      break;
    }
    case etcd::Action::kNone:
      if (etcd_client != nullptr && AuthEnabledInSpec(cluster)) {
        absl::StatusOr<bool> enabled = EnsureAuthEnabled(*etcd_client, cfg.password);
        if (!enabled.ok()) {
          step = enabled.status();
          problem = "enabling etcd authentication: " + std::string(step.message());
          recorder_.Warning(*stored, "AuthEnableFailed", problem);
        } else if (*enabled) {
          recorder_.Normal(*stored, "AuthEnabled",
                           "etcd authentication is on; root credentials are in Secret " +
                               AuthSecretName(cluster));
        }
      }
      break;
    case etcd::Action::kWait:
      break;
  }

  // 3. Apply the owned objects that differ from the cache (state before the
  // StatefulSet, so a new pod never starts with an old member list).
  const int voting = std::max(1, DesiredReplicas(cluster));
  std::vector<std::pair<kube::GroupVersionResource, Json>> desired = {
      {kServices, BuildHeadlessService(cluster)},
      {kServices, BuildClientService(cluster)},
      {kConfigMaps, BuildStateConfigMap(cluster, state)},
      {kStatefulSets, BuildStatefulSet(cluster, replicas)}};
  if (auto pdb = BuildPodDisruptionBudget(cluster, voting)) desired.emplace_back(kPdbs, *pdb);
  for (const auto& [gvr, obj] : desired) {
    absl::StatusOr<bool> wrote = runtime::ApplyIfChanged(
        client_, gvr, obj, cache_.Get(gvr, n.ns, obj["metadata"]["name"].get<std::string>()),
        kFieldManager);
    if (!wrote.ok()) return wrote.status();
  }

  // 4. Record the step.
  if (action.kind != etcd::Action::kNone && action.kind != etcd::Action::kWait) {
    const std::string kind(etcd::KindName(action.kind));
    if (step.ok()) {
      recorder_.Normal(*stored, kind, action.reason);
    } else {
      recorder_.Warning(*stored, kind + "Failed",
                        action.reason + ": " + std::string(step.message()));
    }
  }

  // 5. Status last, only when it changed.
  int ready = 0;
  for (const etcd::PodView& p : obs.pods) ready += p.ready ? 1 : 0;
  Json status = BuildStatus({.cluster = stored.get(),
                             .etcd = &view,
                             .ready_pods = ready,
                             .action_reason = action.reason,
                             .converged = action.kind == etcd::Action::kNone,
                             .problem = problem,
                             .storage_uids = storage,
                             .now = absl::Now()});
  if (!runtime::IsSubset(status, stored->value("status", Json::object())) ||
      !runtime::IsSubset(stored->value("status", Json::object()), status)) {
    auto wrote = client_.ApplyStatus(kEtcdClusters, n.ns,
                                     {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                                      {"kind", "EtcdCluster"},
                                      {"metadata", {{"name", n.cluster}, {"namespace", n.ns}}},
                                      {"status", status}},
                                     {.field_manager = kFieldManager, .force = true});
    if (!wrote.ok() && !absl::IsNotFound(wrote.status())) return wrote.status();
  }
  // etcd refuses a reconfiguration (member add/remove) until every voter has
  // been connected for a few seconds ("unhealthy cluster"): right after a
  // promote that is expected, not a failure, so it must not grow the backoff.
  if (!step.ok() && absl::StrContains(step.message(), "unhealthy cluster")) {
    return Result{.requeue_after = absl::Seconds(2)};
  }
  if (!step.ok()) return step;  // retried with backoff
  switch (action.kind) {
    case etcd::Action::kNone:
      return Result{.requeue_after = absl::Seconds(60)};  // refresh member health
    case etcd::Action::kWait:
      return Result{.requeue_after = absl::Seconds(5)};
    default:
      return Result{.requeue_after = absl::Seconds(1)};
  }
}

runtime::Controller& SetupEtcdClusterController(runtime::Manager& manager,
                                                EtcdClusterReconciler& reconciler, int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::Controller& c = manager.AddController("etcdcluster", reconciler, {.workers = workers});
  c.Watch(cache.Informer(kEtcdClusters), runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  auto owner = runtime::EnqueueRequestForOwner("etcd.aenix.io", "EtcdCluster");
  for (const auto& gvr : {kStatefulSets, kServices, kConfigMaps, kPdbs}) {
    c.Watch(cache.Informer(gvr), owner, {runtime::ResourceVersionChangedPredicate()});
  }
  // Pods are owned by the StatefulSet: map them by their instance label.
  c.Watch(cache.Informer(kPods),
          [](const Json& pod) {
            const Json labels = pod["metadata"].value("labels", Json::object());
            if (labels.value("app.kubernetes.io/name", "") != "etcd")
              return std::vector<runtime::Request>{};
            return std::vector<runtime::Request>{{pod["metadata"].value("namespace", ""),
                                                  labels.value("app.kubernetes.io/instance", "")}};
          },
          {runtime::ResourceVersionChangedPredicate()});
  cache.Informer(kSecrets);
  cache.Informer({"", "v1", "persistentvolumeclaims"});
  return c;
}

}  // namespace quorum::etcdcluster
