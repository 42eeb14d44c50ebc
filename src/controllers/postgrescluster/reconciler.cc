#include "src/controllers/postgrescluster/reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_defaults.h"
#include "api/postgrescluster_types.h"
#include "src/base/failpoint.h"
#include "src/base/logging.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/common/reconcile_log.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/controllers/postgrescluster/json_path.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/rollout.h"
#include "src/controllers/postgrescluster/status.h"
#include "src/controllers/postgrescluster/users.h"
#include "src/patroni/role.h"
#include "src/patroni/role_sync.h"
#include "src/runtime/apply.h"
#include "src/runtime/conditions.h"
#include "src/runtime/random.h"

namespace quorum::postgrescluster {
namespace {

using runtime::ObjectPtr;
using runtime::Result;

std::string DefaultMemberUrl(const Json& pod) {
  const std::string ip = Str(At(pod, {"status", "podIP"}));
  return ip.empty() ? "" : absl::StrCat("http://", ip, ":", kPatroniPort);
}

// A member's GET /patroni answers within milliseconds when it is up; one
// that does not answer within this is treated as unreachable this round.
constexpr absl::Duration kMemberProbeTimeout = absl::Seconds(1);
constexpr absl::Duration kLeaderReadTimeout = absl::Seconds(2);

SecretValue SecretValueFrom(const runtime::Cache& cache, const std::string& ns) {
  return [&cache, ns](const std::string& name, const char* key) {
    ObjectPtr secret = cache.Get(kSecrets, ns, name);
    std::string out;
    const Json& v = secret ? At(*secret, {"data", key}) : Json();
    if (!v.is_string() || !absl::Base64Unescape(v.get<std::string>(), &out)) return std::string();
    return out;
  };
}

// What the members' REST APIs and the DCS leader key say.
struct Members {
  std::map<std::string, patroni::ObservedRole> roles;  // pod name → role
  std::map<std::string, std::string> urls;             // pod name → REST base URL
  // The leader key's member ("" none); nullopt when not read (kubernetes DCS,
  // or etcd unreachable): the members' own word decides then.
  std::optional<std::string> leader;
  std::string primary;  // the leader that accepts writes: routed as primary
  std::string system_identifier;
};

// Whether the pod runs on a node that is known and not Ready (its member is
// not asked: it would only cost a timeout).
bool OnNotReadyNode(const runtime::Cache& cache, const Json& pod) {
  const std::string node = Str(At(pod, {"spec", "nodeName"}));
  if (node.empty()) return false;
  ObjectPtr n = cache.Get(kNodes, "", node);
  if (n == nullptr) return false;
  for (const Json& c : At(*n, {"status", "conditions"})) {
    if (Str(At(c, {"type"})) == "Ready") return Str(At(c, {"status"})) != "True";
  }
  return false;
}

// Asks the members at once (short timeouts), pods on NotReady nodes skipped.
Members Observe(patroni::RestClient& rest, const runtime::Cache& cache,
                const std::vector<ObjectPtr>& pods, const MemberUrlFunc& member_url,
                std::optional<std::string> leader) {
  Members m;
  m.leader = std::move(leader);
  std::map<std::string, std::string> ask;
  for (const ObjectPtr& pod : pods) {
    const std::string name = Str(At(*pod, {"metadata", "name"}));
    const std::string url = member_url(*pod);
    if (url.empty()) continue;
    m.urls[name] = url;
    m.roles[name] = {.reachable = false};
    if (!OnNotReadyNode(cache, *pod)) ask[name] = url;
  }
  for (const auto& [name, s] : patroni::ProbeMembers(rest, ask)) {
    if (!s.ok()) continue;
    m.roles[name] = {.reachable = true, .role = s->role, .state = s->state};
    if (patroni::ServesAsPrimary(m.roles[name]) && (!m.leader || *m.leader == name)) {
      m.primary = name;
    }
    if (!s->database_system_identifier.empty()) m.system_identifier = s->database_system_identifier;
  }
  return m;
}

// The switchover trigger annotation when it is new (not yet handled), else "".
std::string NewSwitchoverTrigger(const PostgresCluster& cluster) {
  auto annotation =
      cluster.metadata.annotations.find(std::string(api::kSwitchoverTriggerAnnotation));
  const std::string trigger =
      annotation == cluster.metadata.annotations.end() ? "" : annotation->second;
  const auto& last = cluster.status.patroni.switchover;
  const std::string handled = last ? last->trigger : "";
  return trigger == handled ? "" : trigger;
}

// Handles a new switchover trigger; returns the status record, or nullopt
// when there is nothing to record now.
std::optional<api::PostgresSwitchoverStatus> Switchover(const PostgresCluster& cluster,
                                                        const Members& members,
                                                        patroni::RestClient& rest,
                                                        runtime::EventRecorder& recorder,
                                                        const Json& stored) {
  const std::string trigger = NewSwitchoverTrigger(cluster);
  if (trigger.empty()) return std::nullopt;
  const api::PostgresSwitchoverSpec& spec = cluster.spec.patroni.switchover;
  const std::string& type = spec.type;
  const std::string& target = spec.target_instance;
  api::PostgresSwitchoverStatus record{.trigger = trigger,
                                       .type = type,
                                       .from = members.primary,
                                       .to = target,
                                       .time = runtime::Rfc3339(absl::Now())};
  // Logged at info as well as evented, like the etcd membership steps.
  ScopedLogFields fields({{"trigger", trigger},
                          {"switchoverType", type},
                          {"from", members.primary},
                          {"to", target.empty() ? "(Patroni's choice)" : target}});
  absl::Status s;
  Failpoint("postgrescluster/before-Switchover");
  if (!spec.enabled) {
    s = absl::FailedPreconditionError(
        "spec.patroni.switchover.enabled is false: set it to true, then annotate again");
  } else if (type == "Failover") {
    if (target.empty()) {
      s = absl::InvalidArgumentError("a Failover needs spec.patroni.switchover.targetInstance");
    } else if (auto it = members.urls.find(target); it == members.urls.end()) {
      s = absl::FailedPreconditionError("targetInstance " + target + " is not a running member");
    } else {
      s = rest.Failover(it->second, target);
    }
  } else {
    if (members.primary.empty()) return std::nullopt;  // wait for a leader to move from
    if (target == members.primary) {
      record.result = "Succeeded";
      record.message = target + " is the primary already";
      spdlog::info("switchover step: {} is the primary already", target);
      recorder.Normal(stored, type,
                      "trigger " + trigger + ": " + target + " is the primary already");
      return record;
    }
    s = rest.Switchover(members.urls.at(members.primary), members.primary, target);
  }
  if (s.ok()) Failpoint("postgrescluster/after-Switchover");
  record.result = s.ok() ? "Succeeded" : "Failed";
  record.message = s.ok() ? "Patroni accepted the " + type : std::string(s.message());
  if (s.ok()) {
    spdlog::info("switchover step: Patroni accepted the {}", type);
    recorder.Normal(stored, type,
                    "trigger " + trigger + ": " + type + " from " + members.primary +
                        (target.empty() ? "" : " to " + target));
  } else {
    spdlog::warn("switchover step failed: {}", std::string(s.message()));
    recorder.Warning(stored, type + "Failed",
                     "trigger " + trigger + ": " + std::string(s.message()));
  }
  return record;
}

// The member pods as the rollout sees them.
std::vector<MemberPod> MemberPods(const PostgresCluster& cluster, const runtime::Cache& cache,
                                  const std::vector<ObjectPtr>& pods, const std::string& primary) {
  const Names n = NamesOf(cluster);
  std::vector<MemberPod> out;
  for (const ObjectPtr& pod : pods) {
    const Json& labels = At(*pod, {"metadata", "labels"});
    const std::string set = Str(At(labels, {std::string(api::kInstanceSetLabel).c_str()}));
    ObjectPtr sts = cache.Get(kStatefulSets, n.ns, StatefulSetName(cluster, set));
    const std::string revision = sts ? Str(At(*sts, {"status", "updateRevision"})) : "";
    MemberPod m{.name = Str(At(*pod, {"metadata", "name"}))};
    m.outdated = !revision.empty() && Str(At(labels, {"controller-revision-hash"})) != revision;
    m.primary = m.name == primary;
    for (const Json& c : At(*pod, {"status", "conditions"})) {
      if (Str(At(c, {"type"})) == "Ready") m.ready = Str(At(c, {"status"})) == "True";
    }
    out.push_back(m);
  }
  return out;
}

// Everything a phase of one reconcile needs.
struct Phase {
  kube::Client& client;
  runtime::Cache& cache;
  runtime::EventRecorder& recorder;
  const Json& stored;              // as read from the cache
  const PostgresCluster& cluster;  // parsed: defaulted, validated, typed
  Names n;
};

// The DCS (Secrets checked, clusterRef followed); a problem is a Warning
// event and DCSReady=False, never a crash loop.
DcsResolution ObserveDcs(const Phase& p) {
  const DcsResolution dcs =
      ResolveDcs(p.cluster, [&](const std::string& kind, const std::string& name) -> ObjectPtr {
        return p.cache.Get(kind == "Secret" ? kSecrets : kEtcdClusters, p.n.ns, name);
      });
  if (!dcs.ready) p.recorder.Warning(p.stored, dcs.reason, dcs.message);
  return dcs;
}

// Creates the credential Secrets that are missing (once; never rewritten).
absl::Status EnsureCredentials(const Phase& p) {
  for (const CredentialSpec& c : CredentialSecrets(p.cluster)) {
    if (p.cache.Get(kSecrets, p.n.ns, c.secret) != nullptr) continue;
    absl::StatusOr<std::string> password = runtime::RandomPassword();
    if (!password.ok()) return password.status();
    absl::StatusOr<Json> made = p.client.Create(
        kSecrets, p.n.ns,
        BuildCredentialSecret(p.cluster, c.secret, c.username, *password, c.dbname));
    if (!made.ok() && !absl::IsAlreadyExists(made.status())) return made.status();
    if (made.ok()) p.recorder.Normal(p.stored, "SecretCreated", "created Secret " + c.secret);
  }
  return absl::OkStatus();
}

kube::GroupVersionResource RbacResource(const Json& o) {
  const std::string kind = o["kind"];
  return kind == "ServiceAccount" ? kServiceAccounts : kind == "Role" ? kRoles : kRoleBindings;
}

// controllers::PrepareStatefulSet for one instance set's StatefulSet: `obj`
// becomes what to apply; false when it is being re-created. The first
// outcome with something to say goes to `claims`, and is evented.
absl::StatusOr<bool> PrepareInstanceSet(const Phase& p, Json& obj, const ObjectPtr& cached,
                                        controllers::ClaimTemplateOutcome* claims) {
  std::string field = "spec.instances[].dataVolumeClaimSpec";
  const std::vector<api::PostgresInstanceSet>& sets = p.cluster.spec.instances;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (StatefulSetName(p.cluster, sets[i].name) == obj["metadata"].value("name", "")) {
      field = absl::StrCat("spec.instances[", i, "].dataVolumeClaimSpec");
    }
  }
  absl::StatusOr<controllers::ClaimTemplateOutcome> out =
      controllers::PrepareStatefulSet(p.client, p.cache, std::move(obj), cached, field);
  if (!out.ok()) return out.status();
  obj = out->statefulset;
  const bool apply = out->apply;
  if (!out->reason.empty() && out->reason != "Waiting") {
    if (out->warning) {
      p.recorder.Warning(p.stored, "Storage" + out->reason, out->message);
    } else {
      p.recorder.Normal(p.stored, "Storage" + out->reason, out->message);
    }
  }
  if (claims != nullptr && claims->reason.empty()) *claims = *std::move(out);
  return apply;
}

// Applies the owned objects that differ from the cache. Without a usable DCS
// the members' configuration cannot be written, and members already running
// keep theirs. The pods' API rights go when the spec turns them off (or the
// DCS changes what they need): what BuildRbac no longer wants is deleted.
absl::Status ApplyOwnedObjects(const Phase& p, const DcsResolution& dcs,
                               controllers::ClaimTemplateOutcome* claims) {
  std::vector<std::pair<kube::GroupVersionResource, Json>> desired;
  for (Json& s : BuildServices(p.cluster)) desired.emplace_back(kServices, std::move(s));
  const std::vector<Json> rbac = BuildRbac(p.cluster);
  for (const Json& o : rbac) desired.emplace_back(RbacResource(o), o);
  if (auto pdb = BuildPodDisruptionBudget(p.cluster)) desired.emplace_back(kPdbs, *pdb);
  if (dcs.ready) {
    const patroni::ConfigInput input = BuildPatroniInput(p.cluster, dcs);
    desired.emplace_back(kConfigMaps, BuildConfigMap(p.cluster, input));
    for (const api::PostgresInstanceSet& set : p.cluster.spec.instances)
      desired.emplace_back(kStatefulSets, BuildStatefulSet(p.cluster, set, input, dcs));
  }
  for (auto& [gvr, obj] : desired) {
    ObjectPtr cached = p.cache.Get(gvr, p.n.ns, obj["metadata"]["name"].get<std::string>());
    if (gvr == kStatefulSets) {  // a changed claim template must not fail the apply
      absl::StatusOr<bool> apply = PrepareInstanceSet(p, obj, cached, claims);
      if (!apply.ok()) return apply.status();
      if (!*apply) continue;
    }
    absl::StatusOr<bool> wrote = runtime::ApplyIfChanged(p.client, gvr, obj, cached, kFieldManager);
    if (!wrote.ok()) return wrote.status();
  }
  if (!rbac.empty()) return absl::OkStatus();
  for (const auto& [gvr, name] : {std::pair{kRoleBindings, p.n.role}, std::pair{kRoles, p.n.role},
                                  std::pair{kServiceAccounts, p.n.service_account}}) {
    if (p.cache.Get(gvr, p.n.ns, name) == nullptr) continue;
    absl::Status s = p.client.Delete(gvr, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  return absl::OkStatus();
}

// The DCS leader key: etcd read with a short deadline, or the kubernetes
// DCS's leader Endpoints from the cache; nullopt when unknown.
std::optional<std::string> ObserveLeader(const Phase& p, const DcsResolution& dcs) {
  if (!dcs.ready) return std::nullopt;
  if (UsesEtcd(p.cluster)) {
    return ReadDcsLeader(p.cluster, dcs, SecretValueFrom(p.cache, p.n.ns), kLeaderReadTimeout);
  }
  ObjectPtr endpoints = p.cache.Get(kEndpoints, p.n.ns, p.n.primary_service);
  return LeaderFromEndpoints(endpoints.get());
}

// The cluster's member pods that are not being deleted.
std::vector<ObjectPtr> ObservePods(const Phase& p) {
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : p.cache.ByInstance(kPods, p.n.ns, p.n.cluster)) {
    if (Str(At(*pod, {"metadata", "labels", std::string(api::kClusterLabel).c_str()})) ==
            p.n.cluster &&
        !(*pod)["metadata"].contains("deletionTimestamp")) {
      pods.push_back(pod);
    }
  }
  return pods;
}

// With the etcd DCS, corrects the pods' role labels from the members' own
// word (with the kubernetes DCS, Patroni labels its pods itself). Returns a
// problem sentence or "".
std::string CorrectRoleLabels(const Phase& p, const std::vector<ObjectPtr>& pods,
                              const Members& members) {
  if (!UsesEtcd(p.cluster)) return "";
  std::vector<patroni::PodRoleLabel> current;
  for (const ObjectPtr& pod : pods) {
    const Json& label = At(*pod, {"metadata", "labels", std::string(patroni::kRoleLabel).c_str()});
    current.push_back({Str(At(*pod, {"metadata", "name"})),
                       label.is_string() ? std::optional(label.get<std::string>()) : std::nullopt});
  }
  const std::vector<patroni::LabelPatch> patches =
      patroni::PlanRoleLabels(current, members.roles, members.leader);
  absl::Status s = patroni::ApplyRoleLabels(p.client, p.n.ns, patches);
  for (const patroni::LabelPatch& patch : patches) {
    spdlog::info("pod {} role label -> {}", patch.pod, patch.label.value_or("(none)"));
  }
  return s.ok() ? "" : "correcting role labels: " + std::string(s.message());
}

// Rolls outdated members, one step at a time (the StatefulSets are OnDelete);
// waits while a new switchover trigger is handled in this reconcile (one risky
// step per reconcile).
void RollOutdatedMembers(const Phase& p, const std::vector<ObjectPtr>& pods, const Members& members,
                         patroni::RestClient& rest) {
  const RollStep step =
      NextRollStep(MemberPods(p.cluster, p.cache, pods, members.primary), DesiredMembers(p.cluster),
                   !NewSwitchoverTrigger(p.cluster).empty());
  if (step.kind != RollStep::kDeletePod && step.kind != RollStep::kSwitchover) return;
  absl::Status s;
  Failpoint("postgrescluster/before-RollingUpdate");
  if (step.kind == RollStep::kDeletePod) {
    s = p.client.Delete(kPods, p.n.ns, step.pod);
    if (absl::IsNotFound(s)) s = absl::OkStatus();
  } else {
    s = rest.Switchover(members.urls.at(step.pod), step.pod, "");
  }
  if (s.ok()) Failpoint("postgrescluster/after-RollingUpdate");
  if (s.ok()) {
    spdlog::info("rolling update: {}", step.reason);
    p.recorder.Normal(p.stored, "RollingUpdate", step.reason);
  } else {
    spdlog::warn("rolling update failed: {}: {}", step.reason, std::string(s.message()));
    p.recorder.Warning(p.stored, "RollingUpdateFailed",
                       step.reason + ": " + std::string(s.message()));
  }
}

// Builds the status and applies it only when it changed.
absl::Status WriteStatus(const Phase& p, const DcsResolution& dcs, const Members& members,
                         const std::optional<api::PostgresSwitchoverStatus>& switchover,
                         const std::string& problem,
                         const controllers::ClaimTemplateOutcome& claims) {
  std::map<std::string, Json> statefulsets;
  std::vector<ObjectPtr> pvcs;
  std::string recreating;  // a StatefulSet missing while a resize is followed
  // Right after a spec change (the stored status is older than the spec),
  // or while the Storage condition is False.
  const api::Condition* storage_condition = api::FindCondition(p.cluster.status, "Storage");
  const bool resizing = !claims.reason.empty() ||
                        p.cluster.status.observed_generation != p.cluster.metadata.generation ||
                        (storage_condition != nullptr && storage_condition->status == "False");
  for (const api::PostgresInstanceSet& set : p.cluster.spec.instances) {
    ObjectPtr sts = p.cache.Get(kStatefulSets, p.n.ns, StatefulSetName(p.cluster, set.name));
    statefulsets[set.name] = sts ? *sts : Json();
    // The PVC cache does not hold these claims (no app.kubernetes.io/name
    // label): read them only when a resize may be under way.
    if (sts && resizing) {
      absl::StatusOr<std::vector<ObjectPtr>> listed = controllers::ListClaims(p.client, *sts);
      if (listed.ok()) pvcs.insert(pvcs.end(), listed->begin(), listed->end());
    }
    if (!sts && resizing && recreating.empty()) recreating = StatefulSetName(p.cluster, set.name);
  }
  StorageState storage{.reason = claims.reason, .message = claims.message};
  if (storage.reason.empty() && !recreating.empty()) {
    storage = {.reason = "Recreating",
               .message = "StatefulSet " + recreating + " is being re-created"};
  }
  if (storage.reason.empty()) {
    const controllers::ResizeProgress progress = controllers::ResizeProgressOf(pvcs);
    if (progress.resizing > 0) storage = {.reason = "Resizing", .message = progress.message};
  }
  const Json status = api::ToJson(BuildStatus({.cluster = &p.cluster,
                                               .dcs = &dcs,
                                               .statefulsets = statefulsets,
                                               .primary = members.primary,
                                               .system_identifier = members.system_identifier,
                                               .switchover = switchover,
                                               .problem = problem,
                                               .storage = storage,
                                               .now = absl::Now()}));
  const Json old = p.stored.value("status", Json::object());
  if (runtime::IsSubset(status, old) && runtime::IsSubset(old, status)) return absl::OkStatus();
  auto wrote = p.client.ApplyStatus(kPostgresClusters, p.n.ns,
                                    {{"apiVersion", std::string(api::kPostgresApiVersion)},
                                     {"kind", std::string(api::kPostgresClusterKind)},
                                     {"metadata", {{"name", p.n.cluster}, {"namespace", p.n.ns}}},
                                     {"status", status}},
                                    {.field_manager = kFieldManager, .force = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

// What the members said, as one string: the backoff restarts when it changes.
std::string RolesSignature(const Members& members) {
  std::string out = members.primary + "|leader=" + members.leader.value_or("(unread)");
  for (const auto& [pod, role] : members.roles) {
    absl::StrAppend(&out, "|", pod, "=", role.reachable ? role.role : "(unreachable)");
  }
  return out;
}

// With the etcd DCS the pods may have no API rights (podAPIAccess: false) and
// the role callback is only a fast path: the operator's own look at the
// members is what keeps the primary Service on the leader after a failover
// that changes no pod. A change of the DCS leader key wakes the reconcile at
// once (leader_watch.h), so this look only catches what the key does not
// show (a leader that cannot take writes); capped at 30 s, it no longer keeps
// the workers busy probing members on dead nodes (issue 14.7).
constexpr absl::Duration kMaxRoleWait = absl::Seconds(30);

// Wait: nothing while a watch signals the next change, capped backoff for
// what only the members' REST APIs show and for a user's Secret.
Result NextWait(controllers::WaitBackoff& backoff, const runtime::Request& req,
                const DcsResolution& dcs, const Members& members) {
  // A referenced Secret is read through the API server, not watched: look
  // again with backoff. A referenced EtcdCluster is watched, and without a
  // reachable member a pod must start (watched): neither is polled.
  if (!dcs.ready && (dcs.reason == "SecretNotFound" || dcs.reason == "SecretIncomplete")) {
    return Result{.requeue_after =
                      backoff.Next(req.Key(), dcs.message, controllers::kMaxSecretWait)};
  }
  if (!dcs.ready || members.urls.empty()) {
    backoff.Reset(req.Key());
    return Result{};
  }
  // Members run. Patroni itself (kubernetes DCS) or its role callback (etcd
  // DCS, when the pods may patch themselves) relabels the pods, and those
  // events reconcile; the roles are also re-read with capped backoff. A
  // change of roles restarts the backoff.
  const bool etcd_dcs = std::holds_alternative<patroni::EtcdDcs>(dcs.dcs);
  return Result{.requeue_after = backoff.Next(req.Key(), RolesSignature(members),
                                              etcd_dcs ? kMaxRoleWait : controllers::kMaxWait)};
}

}  // namespace

std::string PostgresClusterReconciler::EnsureUsersOnce(const PostgresCluster& cluster,
                                                       const std::string& primary,
                                                       const std::vector<ObjectPtr>& pods,
                                                       const Json& stored) {
  const Names n = NamesOf(cluster);
  const std::vector<api::PostgresUserSpec>& users = cluster.spec.users;
  if (users.empty()) return "";
  std::string host;
  for (const ObjectPtr& pod : pods) {
    if (Str(At(*pod, {"metadata", "name"})) == primary) host = Str(At(*pod, {"status", "podIP"}));
  }
  auto secret_value = [&](const std::string& name, const char* key) {
    ObjectPtr secret = cache_.Get(kSecrets, n.ns, name);
    std::string out;
    const Json& v = secret ? At(*secret, {"data", key}) : Json();
    if (!v.is_string() || !absl::Base64Unescape(v.get<std::string>(), &out)) return std::string();
    return out;
  };
  auto version = [&](const std::string& name) {
    ObjectPtr secret = cache_.Get(kSecrets, n.ns, name);
    return secret ? Str(At(*secret, {"metadata", "resourceVersion"})) : std::string();
  };
  std::string key = absl::StrCat(primary, "|", host, "|", version(n.superuser_secret));
  for (const api::PostgresUserSpec& u : users) {
    absl::StrAppend(&key, "|", u.name, "(", absl::StrJoin(u.databases, ","), ";",
                    absl::StrJoin(u.options, ","), ")=", version(UserSecretName(cluster, u.name)));
  }
  // Keyed by namespace/name (forgotten when the object goes), the uid in the
  // value: a re-created cluster of the same name gets its users again.
  const std::string object = n.ns + "/" + n.cluster;
  absl::StrAppend(&key, "|", cluster.metadata.uid);
  {
    absl::MutexLock lock(&mu_);
    auto it = users_applied_.find(object);
    if (it != users_applied_.end() && it->second == key) return "";
  }
  if (host.empty()) return "";
  absl::Status s = EnsureUsers({.host = host,
                                .port = kPostgresPort,
                                .user = std::string(api::kSuperuserName),
                                .password = secret_value(n.superuser_secret, "password")},
                               UsersOf(cluster, [&](const std::string& secret) {
                                 return secret_value(secret, "password");
                               }));
  if (!s.ok()) {
    const std::string message = "creating spec.users in PostgreSQL: " + std::string(s.message());
    recorder_.Warning(stored, "UsersFailed", message);
    return message;
  }
  recorder_.Normal(stored, "UsersReady",
                   absl::StrCat(users.size(), " user(s) and their databases exist"));
  absl::MutexLock lock(&mu_);
  users_applied_[object] = key;
  return "";
}

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
  absl::MutexLock lock(&mu_);
  users_applied_.erase(req.Key());
}

size_t PostgresClusterReconciler::remembered() const {
  absl::MutexLock lock(&mu_);
  return users_applied_.size() + backoff_.size();
}

// A deleting cluster: the finalizer's cleanup (finalizer.h), then forget it.
absl::StatusOr<Result> PostgresClusterReconciler::ReconcileDeletion(const runtime::Request& req,
                                                                    const Json& stored) {
  // Decoded leniently: a spec the current rules refuse must still go.
  Json defaulted = stored;
  api::DefaultPostgresCluster(defaulted);
  absl::StatusOr<PostgresCluster> going = api::DecodePostgresCluster(defaulted);
  if (!going.ok()) {
    recorder_.Warning(stored, "InvalidSpec", std::string(going.status().message()));
    return runtime::TerminalError(going.status());
  }
  absl::StatusOr<absl::Duration> wait =
      ReconcileFinalizer(client_, cache_, recorder_, stored, *going,
                         [&] { return backoff_.Next(req.Key(), "removing the DCS keys"); });
  if (!wait.ok()) return wait.status();
  if (*wait > absl::ZeroDuration()) return Result{.requeue_after = *wait};
  Forget(req);
  return Result{};
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
  const DcsResolution dcs = ObserveDcs(ctx);
  if (leader_watch_ != nullptr) {  // before the leader is read: no change slips between
    leader_watch_->Follow(req,
                          LeaderWatchTargetFor(*cluster, dcs, SecretValueFrom(cache_, req.ns)));
  }
  if (absl::Status s = EnsureCredentials(ctx); !s.ok()) return s;
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

runtime::Controller& SetupPostgresClusterController(runtime::Manager& manager,
                                                    PostgresClusterReconciler& reconciler,
                                                    int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& clusters = cache.Informer(kPostgresClusters);
  // The indexes decode without defaulting: references need no defaults, and
  // an object that does not decode references nothing until it is fixed.
  clusters.AddIndex(kSecretIndex, [](const Json& obj) {
    std::vector<std::string> keys;
    absl::StatusOr<PostgresCluster> c = api::DecodePostgresCluster(obj);
    if (!c.ok()) return keys;
    for (const std::string& s : ReferencedSecrets(*c)) keys.push_back(c->metadata.ns + "/" + s);
    return keys;
  });
  clusters.AddIndex(kEtcdClusterIndex, [](const Json& obj) {
    absl::StatusOr<PostgresCluster> c = api::DecodePostgresCluster(obj);
    if (!c.ok() || ReferencedEtcdCluster(*c).empty()) return std::vector<std::string>{};
    return std::vector<std::string>{c->metadata.ns + "/" + ReferencedEtcdCluster(*c)};
  });
  auto key_of = [](const Json& o) {
    return std::vector<std::string>{o["metadata"].value("namespace", "") + "/" +
                                    o["metadata"].value("name", "")};
  };
  auto by_cluster_label = [](const Json& o) {
    const std::string name =
        Str(At(o, {"metadata", "labels", std::string(api::kClusterLabel).c_str()}));
    if (name.empty()) return std::vector<runtime::Request>{};
    return std::vector<runtime::Request>{{o["metadata"].value("namespace", ""), name}};
  };
  runtime::Controller& c =
      manager.AddController("postgrescluster", reconciler, {.workers = workers});
  c.Watch(clusters, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  auto owner = runtime::EnqueueRequestForOwner(std::string(api::kPostgresGroup),
                                               std::string(api::kPostgresClusterKind));
  for (const auto& gvr :
       {kStatefulSets, kServices, kConfigMaps, kPdbs, kServiceAccounts, kRoles, kRoleBindings}) {
    c.Watch(cache.Informer(gvr), owner, {runtime::ResourceVersionChangedPredicate()});
  }
  // A referenced Secret or EtcdCluster that changes (or appears) reconciles
  // the clusters that use it; the cluster's own Secrets map by owner.
  c.Watch(cache.Informer(kSecrets),
          [owner, index = runtime::EnqueueRequestsFromIndex(clusters.store(), kSecretIndex,
                                                            key_of)](const Json& secret) {
            std::vector<runtime::Request> out = index(secret);
            for (runtime::Request& r : owner(secret)) out.push_back(std::move(r));
            return out;
          },
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(kEtcdClusters),
          runtime::EnqueueRequestsFromIndex(clusters.store(), kEtcdClusterIndex, key_of),
          {runtime::ResourceVersionChangedPredicate()});
  // The kubernetes DCS's leader Endpoints (Patroni labels it like the pods):
  // a new leader reconciles at once; renewals alone do not.
  runtime::Predicate leader_changed;
  leader_changed.update = [](const Json& old_object, const Json& new_object) {
    return Str(At(old_object, {"metadata", "annotations", "leader"})) !=
           Str(At(new_object, {"metadata", "annotations", "leader"}));
  };
  c.Watch(cache.Informer(kEndpoints), by_cluster_label, {leader_changed});
  // The etcd DCS's leader keys: a watch on etcd wakes the cluster at once.
  reconciler.FollowDcsLeaders([&c](const runtime::Request& r) { c.queue().Add(r.Key()); });
  // Nodes: read to skip members on NotReady nodes (their pods' Ready
  // condition changes with the node, and that reconciles).
  cache.Informer(kNodes, /*cluster_scoped=*/true);
  // Member pods (owned by StatefulSets) map by their cluster label.
  c.Watch(cache.Informer(kPods), by_cluster_label, {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::postgrescluster
