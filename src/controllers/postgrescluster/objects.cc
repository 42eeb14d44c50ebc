#include "src/controllers/postgrescluster/objects.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/controllers/postgrescluster/pgbouncer_phase.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/status.h"
#include "src/runtime/apply.h"
#include "src/runtime/random.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

// Creates the credential Secrets that are missing (once; the password is
// never rewritten); one made before TLS gets ca.crt and sslmode added.
absl::Status EnsureCredentials(const Phase& p, const std::string& ca_pem) {
  for (const CredentialSpec& c : CredentialSecrets(p.cluster)) {
    if (ObjectPtr cached = p.cache.Get(kSecrets, p.n.ns, c.secret)) {
      std::optional<Json> data = UpgradedCredentialData(At(*cached, {"data"}), c.username, ca_pem);
      if (!data.has_value()) continue;
      Json updated = *cached;
      updated["data"] = *std::move(data);
      // With the resourceVersion read: a concurrent change (a user's new
      // password) wins, and this is redone from it (Conflict: retried).
      absl::StatusOr<Json> wrote = p.client.Update(kSecrets, p.n.ns, updated);
      if (!wrote.ok()) return wrote.status();
      p.recorder.Normal(p.stored, "SecretUpdated",
                        "added the cluster's CA and sslmode to Secret " + c.secret);
      continue;
    }
    absl::StatusOr<std::string> password = runtime::RandomPassword();
    if (!password.ok()) return password.status();
    absl::StatusOr<Json> made = p.client.Create(
        kSecrets, p.n.ns,
        BuildCredentialSecret(p.cluster, c.secret, c.username, *password, c.dbname, ca_pem));
    if (!made.ok() && !absl::IsAlreadyExists(made.status())) return made.status();
    if (made.ok()) p.recorder.Normal(p.stored, "SecretCreated", "created Secret " + c.secret);
  }
  return absl::OkStatus();
}

namespace {

kube::GroupVersionResource RbacResource(const Json& o) {
  const std::string kind = json_access::Str(json_access::At(o, {"kind"}));
  return kind == "ServiceAccount" ? kServiceAccounts : kind == "Role" ? kRoles : kRoleBindings;
}

// controllers::PrepareStatefulSet for one instance set's StatefulSet: `obj`
// becomes what to apply; false when it is being re-created. The first
// outcome with something to say goes to `claims`, and is evented.
absl::StatusOr<bool> PrepareInstanceSet(const Phase& p, Json& obj, const ObjectPtr& cached,
                                        controllers::ClaimTemplateOutcome* claims) {
  const std::string name = json_access::Str(json_access::At(obj, {"metadata", "name"}));
  std::string field = name == p.n.repo_host
                          ? "spec.backups.pgbackrest.repos[].volume.volumeClaimSpec"
                          : "spec.instances[].dataVolumeClaimSpec";
  const std::vector<api::PostgresInstanceSet>& sets = p.cluster.spec.instances;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (StatefulSetName(p.cluster, sets[i].name) == name) {
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

// For a StatefulSet about to be created: the claims it would take over that
// an earlier cluster of this name left (LeftoverClaimsProblem).
absl::StatusOr<std::vector<std::string>> EarlierClaims(const Phase& p, const Json& sts) {
  absl::StatusOr<std::vector<ObjectPtr>> claims = controllers::ListClaims(p.client, sts);
  if (!claims.ok()) return claims.status();
  return controllers::ClaimsOlderThan(*claims, p.cluster.metadata.creation_timestamp);
}

// The repository host's objects once no volume repository is left (its
// claims stay, as the StatefulSet retains them).
absl::Status DeleteRepoHost(const Phase& p) {
  for (const kube::GroupVersionResource& gvr : {kStatefulSets, kServices, kNetworkPolicies}) {
    const ObjectPtr cached = p.cache.Get(gvr, p.n.ns, p.n.repo_host);
    if (cached == nullptr || controllers::BeingDeleted(*cached)) continue;
    absl::Status s = p.client.Delete(gvr, p.n.ns, p.n.repo_host);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  return absl::OkStatus();
}

// Whether the StatefulSet `sts`, about to be created, must not be: claims an
// earlier cluster of this name left would be its members' (recorded in
// `applied`; the reconciler says so in an event, LeftoverClaimsRecheck).
absl::StatusOr<bool> HeldByEarlierClaims(const Phase& p, const Json& sts, AppliedObjects* applied) {
  absl::StatusOr<std::vector<std::string>> earlier = EarlierClaims(p, sts);
  if (!earlier.ok()) return earlier.status();
  if (earlier->empty()) return false;
  applied->leftover_claims.insert(applied->leftover_claims.end(), earlier->begin(), earlier->end());
  return true;
}

}  // namespace

// Applies the owned objects that differ from the cache. Without a usable DCS
// the members' configuration cannot be written, and members already running
// keep theirs. The pods' API rights go when the spec turns them off (or the
// DCS changes what they need): what BuildRbac no longer wants is deleted.
absl::Status ApplyOwnedObjects(const Phase& p, const DcsResolution& dcs,
                               const std::map<std::string, int>& hold, AppliedObjects* applied) {
  std::vector<std::pair<kube::GroupVersionResource, Json>> desired;
  for (Json& s : BuildServices(p.cluster)) desired.emplace_back(kServices, std::move(s));
  const std::vector<Json> rbac = BuildRbac(p.cluster);
  for (const Json& o : rbac) desired.emplace_back(RbacResource(o), o);
  if (auto pdb = BuildPodDisruptionBudget(p.cluster)) desired.emplace_back(kPdbs, *pdb);
  const std::optional<Json> policy = BuildNetworkPolicy(p.cluster, p.operator_peer);
  if (policy.has_value()) desired.emplace_back(kNetworkPolicies, *policy);
  const std::optional<Json> repo_host_policy = BuildRepoHostNetworkPolicy(p.cluster);
  if (repo_host_policy.has_value()) desired.emplace_back(kNetworkPolicies, *repo_host_policy);
  if (std::optional<Json> svc = BuildRepoHostService(p.cluster)) {
    desired.emplace_back(kServices, *std::move(svc));
  }
  AppendPgBouncerObjects(p, desired);  // spec.proxy.pgBouncer
  if (dcs.ready) {
    const patroni::ConfigInput input = BuildPatroniInput(p.cluster, dcs);
    desired.emplace_back(kConfigMaps, BuildConfigMap(p.cluster, input));
    for (const api::PostgresInstanceSet& set : p.cluster.spec.instances) {
      Json sts = BuildStatefulSet(p.cluster, set, input, dcs);
      auto held = hold.find(StatefulSetName(p.cluster, set.name));
      if (held != hold.end()) sts["spec"]["replicas"] = held->second;
      desired.emplace_back(kStatefulSets, std::move(sts));
    }
    if (std::optional<Json> host = BuildRepoHostStatefulSet(p.cluster)) {
      desired.emplace_back(kStatefulSets, *std::move(host));
    }
  }
  absl::Status refused;  // the first object the API server refused
  for (auto& [gvr, obj] : desired) {
    const std::string name = json_access::Str(json_access::At(obj, {"metadata", "name"}));
    ObjectPtr cached = p.cache.Get(gvr, p.n.ns, name);
    if (gvr == kStatefulSets && cached == nullptr) {
      absl::StatusOr<bool> held = HeldByEarlierClaims(p, obj, applied);
      if (!held.ok()) return held.status();
      if (*held) continue;
    }
    if (gvr == kStatefulSets) {  // a changed claim template must not fail the apply
      absl::StatusOr<bool> apply = PrepareInstanceSet(p, obj, cached, &applied->claims);
      if (!apply.ok()) return apply.status();
      if (!*apply) continue;
    }
    absl::StatusOr<bool> wrote = runtime::ApplyIfChanged(p.client, gvr, obj, cached, kFieldManager);
    if (runtime::IsRefusedWrite(wrote.status())) {  // the others still go
      if (refused.ok()) refused = wrote.status();
      continue;
    }
    if (!wrote.ok()) return wrote.status();
    if (gvr == kStatefulSets && *wrote && name != p.n.repo_host) {
      applied->statefulset_written = true;
    }
  }
  if (!policy.has_value() && p.cache.Get(kNetworkPolicies, p.n.ns, p.n.network_policy)) {
    absl::Status s = p.client.Delete(kNetworkPolicies, p.n.ns, p.n.network_policy);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  if (!HasVolumeRepos(p.cluster)) {
    if (absl::Status s = DeleteRepoHost(p); !s.ok()) return s;
  } else if (!repo_host_policy.has_value() &&
             p.cache.Get(kNetworkPolicies, p.n.ns, p.n.repo_host) != nullptr) {
    absl::Status s = p.client.Delete(kNetworkPolicies, p.n.ns, p.n.repo_host);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  if (absl::Status s = DeleteUnwantedPgBouncerObjects(p); !s.ok()) return s;
  if (absl::Status s = AdoptPatroniObjects(p); !s.ok()) return s;
  if (!rbac.empty()) return refused;
  for (const auto& [gvr, name] : {std::pair{kRoleBindings, p.n.role}, std::pair{kRoles, p.n.role},
                                  std::pair{kServiceAccounts, p.n.service_account}}) {
    if (p.cache.Get(gvr, p.n.ns, name) == nullptr) continue;
    absl::Status s = p.client.Delete(gvr, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  return refused;
}

absl::Status AdoptPatroniObjects(const Phase& p) {
  if (!UsesConfigMaps(p.cluster)) return absl::OkStatus();
  for (const std::string& name : PatroniObjectNames(p.cluster)) {
    ObjectPtr object = p.cache.Get(kConfigMaps, p.n.ns, name);
    if (object == nullptr) continue;
    std::optional<Json> patch = PatroniObjectOwnerPatch(p.cluster, *object);
    if (!patch.has_value()) continue;
    absl::StatusOr<Json> r =
        p.client.Patch(kConfigMaps, p.n.ns, name, kube::PatchType::kMerge, *patch);
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
  }
  return absl::OkStatus();
}

}  // namespace quorum::postgrescluster
