#include "src/controllers/postgrescluster/status.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/typed_condition.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/major_upgrade.h"
#include "src/controllers/postgrescluster/pgbouncer.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

namespace {

// An integer of a StatefulSet (the observed object, not the spec).
int IntAt(const Json& j, std::initializer_list<const char*> path, int fallback = 0) {
  const Json& v = At(j, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
}

struct ReadyVerdict {
  bool ready = false;
  std::string reason, message;
};

// Ready: writes through the primary Service can succeed. The first reason
// that holds wins.
ReadyVerdict ReadyOf(const StatusInput& in, int ready, int desired) {
  const std::string count = absl::StrCat(ready, "/", desired, " members ready");
  if (!in.dcs->ready) return {.reason = "DCSNotReady", .message = in.dcs->message};
  if (RestoreRunning(*in.cluster)) {
    const api::PgBackRestRestoreStatus& r = *in.cluster->status.restore;
    return {.reason = "Restoring",
            .message = absl::StrCat("in-place restore ", r.id, " (", r.phase, "): ", r.message)};
  }
  if (UpgradeUnderway(*in.cluster)) {
    const api::PostgresMajorUpgradeStatus& u = *in.cluster->status.major_upgrade;
    return {.reason = "MajorUpgrade",
            .message = absl::StrCat("major upgrade ", u.from, " → ", u.to, " (", u.phase,
                                    "): ", u.message)};
  }
  if (!in.leftover_claims.empty()) {
    return {.reason = "LeftoverClaims", .message = LeftoverClaimsProblem(in.leftover_claims)};
  }
  if (!in.problem.empty()) return {.reason = "Error", .message = in.problem};
  if (in.primary.empty()) {
    return {.reason = "NoPrimary", .message = absl::StrCat("no member leads yet (", count, ")")};
  }
  if (!in.primary_ready) {
    // The leader runs, but its pod is not (yet, or no longer) Ready: the
    // primary Service has no endpoint, so writes fail.
    return {.reason = "PrimaryNotReady",
            .message = absl::StrCat("primary ", in.primary, " is not Ready (", count, ")")};
  }
  const std::string message = absl::StrCat(count, "; primary ", in.primary);
  if (ready < desired) return {.reason = "InstancesNotReady", .message = message};
  return {.ready = true, .reason = "AllInstancesReady", .message = message};
}

using controllers::MakeCondition;

// RepoHostReady: the repository host has a ready pod.
api::Condition RepoHostCondition(const StatusInput& in) {
  const bool ready = IntAt(in.repo_host, {"status", "readyReplicas"}) >= 1;
  const std::string host = NamesOf(*in.cluster).repo_host;
  return MakeCondition(
      *in.cluster, "RepoHostReady", ready, ready ? "Ready" : "NotReady",
      ready ? "the repository host " + host + " serves the volume repositories"
            : "the repository host " + host +
                  " has no ready pod: archiving into the volume repositories fails (the primary "
                  "keeps its WAL until it succeeds) and their backups wait",
      in.now);
}

// status.proxy.pgBouncer and PgBouncerReady: every pod the spec asks for is
// ready (the Deployment's counters trail a change until its controller saw it).
void PgBouncerStatusInto(const StatusInput& in, api::PostgresClusterStatus& status) {
  const PostgresCluster& cluster = *in.cluster;
  if (!HasPgBouncer(cluster)) return;
  const std::string service = PgBouncerNamesOf(cluster).name;
  const int want = cluster.spec.proxy.pgbouncer->replicas;
  const int ready = IntAt(in.pgbouncer, {"status", "readyReplicas"});
  const bool seen =
      !in.pgbouncer.is_null() && IntAt(in.pgbouncer, {"status", "observedGeneration"}) >=
                                     IntAt(in.pgbouncer, {"metadata", "generation"});
  status.pgbouncer = api::PgBouncerStatus{.replicas = IntAt(in.pgbouncer, {"status", "replicas"}),
                                          .ready_replicas = ready,
                                          .service = service};
  const bool ok = seen && want > 0 && ready >= want;
  status.conditions.push_back(MakeCondition(
      cluster, "PgBouncerReady", ok,
      ok          ? "AllPodsReady"
      : want == 0 ? "ScaledToZero"
                  : "PodsNotReady",
      absl::StrCat(ready, "/", want, " PgBouncer pods ready behind Service ", service), in.now));
}

}  // namespace

std::string LeftoverClaimsProblem(const std::vector<std::string>& claims) {
  return absl::StrCat(
      "PersistentVolumeClaim(s) ", absl::StrJoin(claims, ", "),
      " predate this PostgresCluster: an earlier cluster of this name left them (members' and "
      "repository claims outlive their StatefulSets). Their data, with its roles and passwords, "
      "would start instead of a new database or of spec.dataSource, and this cluster's new "
      "Secrets would not match it, so no member starts on them. Delete them to start (kubectl "
      "delete pvc ",
      absl::StrJoin(claims, " "),
      "); to bring that data back, restore it from the earlier cluster's backups "
      "(spec.dataSource)");
}

api::PostgresClusterStatus BuildStatus(const StatusInput& in) {
  const PostgresCluster& cluster = *in.cluster;
  const Names n = NamesOf(cluster);
  api::PostgresClusterStatus status;
  int desired = 0, ready = 0, updated = 0;
  bool rolled = true;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    const int want = set.replicas;
    auto it = in.statefulsets.find(set.name);
    const Json sts = it == in.statefulsets.end() ? Json() : it->second;
    const int have_ready = IntAt(sts, {"status", "readyReplicas"});
    // Just written, the cached StatefulSet still shows the previous
    // template's count: nothing is known to be updated until it is read again
    // (a backup into a repository just added waits on this: postgresbackup/plan.h).
    const int have_updated = in.statefulset_written ? 0 : IntAt(sts, {"status", "updatedReplicas"});
    status.instances.push_back({.name = set.name,
                                .replicas = IntAt(sts, {"status", "replicas"}),
                                .ready_replicas = have_ready,
                                .updated_replicas = have_updated});
    desired += want;
    ready += std::min(have_ready, want);
    updated += have_updated;
    // The members are rolled by the operator (OnDelete): the StatefulSet
    // having seen the template is not enough, every pod must run it.
    rolled &=
        !sts.is_null() &&
        IntAt(sts, {"status", "observedGeneration"}) >= IntAt(sts, {"metadata", "generation"}) &&
        have_updated >= want;
  }

  const DcsResolution& dcs = *in.dcs;
  status.conditions.push_back(
      MakeCondition(cluster, "DCSReady", dcs.ready, dcs.reason, dcs.message, in.now));
  status.conditions.push_back(MakeCondition(cluster, "DCSSecure", dcs.security.secure,
                                            dcs.security.reason, dcs.security.message, in.now));

  const ReadyVerdict v = ReadyOf(in, ready, desired);
  status.conditions.push_back(
      MakeCondition(cluster, "Ready", v.ready, v.reason, v.message, in.now));
  const bool progressing = in.statefulset_written || !rolled || ready < desired;
  status.conditions.push_back(MakeCondition(
      cluster, "Progressing", progressing, progressing ? "Reconciling" : "Stable",
      progressing ? "members are being created or updated" : "every member runs the current spec",
      in.now));

  const bool had_storage = api::FindCondition(cluster.status, "Storage") != nullptr;
  if (!in.storage.reason.empty() || had_storage) {
    const bool ok = in.storage.reason.empty();
    status.conditions.push_back(MakeCondition(
        cluster, "Storage", ok, ok ? "AsRequested" : in.storage.reason,
        ok ? "Every volume has the size and labels the instance sets ask for" : in.storage.message,
        in.now));
  }

  if (HasVolumeRepos(cluster)) status.conditions.push_back(RepoHostCondition(in));
  PgBouncerStatusInto(in, status);

  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    status.users.push_back({.name = u.name, .secret_name = UserSecretName(cluster, u.name)});
  }
  status.observed_generation = cluster.metadata.generation;
  status.ready_instances = absl::StrCat(ready, "/", desired);
  status.primary_service = n.primary_service;
  status.replica_service = n.replica_service;
  status.primary = in.primary;
  status.patroni = cluster.status.patroni;
  if (!in.system_identifier.empty()) status.patroni.system_identifier = in.system_identifier;
  if (in.switchover) status.patroni.switchover = in.switchover;
  status.backup_repos =
      in.backup_repos.has_value() ? *in.backup_repos : cluster.status.backup_repos;
  status.restore = cluster.status.restore;
  status.postgres_version = cluster.status.postgres_version;
  status.major_upgrade = cluster.status.major_upgrade;
  return status;
}

}  // namespace quorum::postgrescluster
