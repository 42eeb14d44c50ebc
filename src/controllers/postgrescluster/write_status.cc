#include "src/controllers/postgrescluster/write_status.h"

#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/pgbouncer.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/controllers/postgrescluster/status.h"
#include "src/runtime/apply.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

// The repository host's StatefulSet from the cache, or null.
Json RepoHostStatefulSet(const Phase& p) {
  if (!HasVolumeRepos(p.cluster)) return Json();
  ObjectPtr sts = p.cache.Get(kStatefulSets, p.n.ns, p.n.repo_host);
  return sts ? *sts : Json();
}

// The pooler's Deployment from the cache, or null.
Json PgBouncerDeployment(const Phase& p) {
  if (!HasPgBouncer(p.cluster)) return Json();
  ObjectPtr d = p.cache.Get(kDeployments, p.n.ns, PgBouncerNamesOf(p.cluster).name);
  return d ? *d : Json();
}

}  // namespace

absl::Status WriteStatus(const Phase& p, const DcsResolution& dcs, const Members& members,
                         const std::optional<api::PostgresSwitchoverStatus>& switchover,
                         const std::string& problem, const AppliedObjects& applied,
                         const std::optional<std::vector<api::PgBackRestRepoStatus>>& backups) {
  const controllers::ClaimTemplateOutcome& claims = applied.claims;
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
                                               .repo_host = RepoHostStatefulSet(p),
                                               .pgbouncer = PgBouncerDeployment(p),
                                               .primary = members.primary,
                                               .primary_ready = members.primary_ready,
                                               .system_identifier = members.system_identifier,
                                               .switchover = switchover,
                                               .problem = problem,
                                               .leftover_claims = applied.leftover_claims,
                                               .storage = storage,
                                               .statefulset_written = applied.statefulset_written,
                                               .backup_repos = backups,
                                               .now = p.now}));
  const Json old = p.stored.value("status", Json::object());
  if (runtime::IsSubset(status, old) && runtime::IsSubset(old, status)) return absl::OkStatus();
  auto wrote = p.client.ApplyStatus(
      kPostgresClusters, p.n.ns,
      {{"apiVersion", std::string(api::kPostgresApiVersion)},
       {"kind", std::string(api::kPostgresClusterKind)},
       {"metadata", {{"name", p.n.cluster}, {"namespace", p.n.ns}}},
       {"status", status}},
      {.field_manager = kFieldManager, .force = true, .discard_response = true});
  return wrote.ok() || absl::IsNotFound(wrote.status()) ? absl::OkStatus() : wrote.status();
}

}  // namespace quorum::postgrescluster
