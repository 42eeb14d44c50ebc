#include "src/controllers/postgrescluster/restore.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/controllers/postgrescluster/reconciler.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

// Why the restore cannot succeed, as far as the clock and status.backups say
// (it knows the repository from the newest Complete PostgresBackup): a time
// target in the future, no backup at all, or a time target before the
// oldest backup's end. "" when it may.
std::string Unreachable(const PostgresCluster& cluster, const api::PgBackRestInPlaceRestore& r,
                        absl::Time now) {
  absl::Time when;
  std::string bad;
  if (!r.target.time.empty() && absl::ParseTime(absl::RFC3339_full, r.target.time, &when, &bad) &&
      when > now) {
    return absl::StrCat("spec.backups.pgbackrest.restore.target.time ", r.target.time,
                        " is in the future (now ",
                        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone()),
                        "): no archived WAL reaches it, and the recovery would end before its "
                        "target; nothing was stopped");
  }
  for (const api::PgBackRestRepoStatus& repo : cluster.status.backup_repos) {
    if (repo.name != r.repo_name) continue;
    if (!repo.full.has_value() && !repo.differential.has_value() && !repo.incremental.has_value()) {
      return absl::StrCat(r.repo_name,
                          " holds no backup Quorum knows of (status.backups.pgbackrest.repos): "
                          "nothing was stopped; take a PostgresBackup into it first, then give "
                          "the annotation a new value");
    }
    absl::Time target, oldest;
    std::string err;
    if (!r.target.time.empty() && !repo.recoverable_from.empty() &&
        absl::ParseTime(absl::RFC3339_full, r.target.time, &target, &err) &&
        absl::ParseTime(absl::RFC3339_full, repo.recoverable_from, &oldest, &err) &&
        target < oldest) {
      return absl::StrCat("spec.backups.pgbackrest.restore.target.time ", r.target.time,
                          " is before the end of the oldest backup in ", r.repo_name, " (",
                          repo.recoverable_from,
                          ", status.backups.pgbackrest.repos[].recoverableWindow.start): no "
                          "backup reaches it; nothing was stopped");
    }
  }
  return "";
}

}  // namespace

RestorePlan PlanRestore(const PostgresCluster& cluster, absl::Time now) {
  RestorePlan out{.status = cluster.status.restore};
  auto it = cluster.metadata.annotations.find(std::string(api::kRestoreTriggerAnnotation));
  const std::string trigger = it == cluster.metadata.annotations.end() ? "" : it->second;
  if (trigger.empty() || (out.status.has_value() && out.status->id == trigger)) return out;
  const std::optional<api::PgBackRestSpec>& pgbr = cluster.spec.backups.pgbackrest;
  if (!pgbr.has_value() || !pgbr->restore.has_value() || !pgbr->restore->enabled) {
    out.ignored =
        absl::StrCat("annotation ", std::string(api::kRestoreTriggerAnnotation), "=", trigger,
                     " asks for an in-place restore, but "
                     "spec.backups.pgbackrest.restore.enabled is not true; set it "
                     "(with repoName and an optional target), then give the annotation "
                     "a new value");
    return out;
  }
  out.status = api::PgBackRestRestoreStatus{
      .id = trigger,
      .phase = api::kRestoreChecking,
      .started_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone()),
      .message = absl::StrCat("checking that ", pgbr->restore->repo_name,
                              " holds the primary's newest WAL before anything stops")};
  if (std::string why = Unreachable(cluster, *pgbr->restore, now); !why.empty()) {
    out.status->phase = api::kRestoreFailed;
    out.status->finished_at = out.status->started_at;
    out.status->message = std::move(why);
    out.refused = true;
    return out;
  }
  // A new trigger during a restore starts over from Stopping: the members'
  // volumes are gone or going, there is no newest WAL left to check.
  if (RestoreRunning(cluster)) {
    out.status->phase = api::kRestoreStopping;
    out.status->message =
        absl::StrCat("stopping the members to restore from ", pgbr->restore->repo_name);
  }
  out.started = true;
  return out;
}

bool RestoreIn(const PostgresCluster& cluster, const char* phase) {
  return cluster.status.restore.has_value() && cluster.status.restore->phase == phase;
}

std::string RestoreBlocked(const PostgresCluster& cluster) {
  if (!RestoreRunning(cluster) || InPlaceRestoreRepo(cluster) != 0) return "";
  return absl::StrCat("in-place restore ", cluster.status.restore->id, " is ",
                      cluster.status.restore->phase,
                      " but spec.backups.pgbackrest.restore no longer says what to restore (it "
                      "is gone, disabled or names no repository); the members stay stopped "
                      "until it does");
}

namespace {

// The kubernetes DCS's objects (Endpoints or ConfigMaps named after the
// scope, dcs_objects.h; Patroni writes them again when the restored member
// bootstraps).
absl::Status RemoveKubernetesState(const Phase& p) {
  const kube::GroupVersionResource& kind = UsesConfigMaps(p.cluster) ? kConfigMaps : kEndpoints;
  for (const std::string& name : PatroniObjectNames(p.cluster)) {
    absl::Status s = p.client.Delete(kind, p.n.ns, name);
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ClearPatroniState(const Phase& p, const DcsResolution& dcs) {
  return UsesEtcd(p.cluster) ? RemovePatroniEtcdKeys(p.cache, p.cluster, dcs)
                             : RemoveKubernetesState(p);
}

absl::StatusOr<bool> WipeMembers(const Phase& p, const DcsResolution& dcs) {
  if (absl::Status cleared = ClearPatroniState(p, dcs); !cleared.ok()) return cleared;
  int left = 0;
  for (const api::PostgresInstanceSet& set : p.cluster.spec.instances) {
    ObjectPtr sts = p.cache.Get(kStatefulSets, p.n.ns, StatefulSetName(p.cluster, set.name));
    if (sts == nullptr) continue;
    absl::StatusOr<std::vector<ObjectPtr>> claims = controllers::ListClaims(p.client, *sts);
    if (!claims.ok()) return claims.status();
    for (const ObjectPtr& claim : *claims) {
      ++left;
      const Json& meta = (*claim)["metadata"];
      if (meta.contains("deletionTimestamp")) continue;
      const std::string name = meta.value("name", "");
      absl::Status s =
          p.client.Delete(kube::kPvcs, p.n.ns, name, {.precondition_uid = meta.value("uid", "")});
      if (!s.ok() && !absl::IsNotFound(s)) return s;
      spdlog::info("{}/{}: in-place restore: deleted volume {}", p.n.ns, p.n.cluster, name);
    }
  }
  return left == 0;
}

}  // namespace quorum::postgrescluster
