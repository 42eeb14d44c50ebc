#include "src/controllers/postgrescluster/status.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/typed_condition.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

namespace {

// An integer of a StatefulSet (the observed object, not the spec).
int IntAt(const Json& j, std::initializer_list<const char*> path, int fallback = 0) {
  const Json& v = At(j, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
}

using controllers::MakeCondition;

}  // namespace

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
    const int have_updated = IntAt(sts, {"status", "updatedReplicas"});
    status.instances.push_back({.name = set.name,
                                .replicas = IntAt(sts, {"status", "replicas"}),
                                .ready_replicas = have_ready,
                                .updated_replicas = have_updated});
    desired += want;
    ready += std::min(have_ready, want);
    updated += have_updated;
    rolled &= !sts.is_null() && IntAt(sts, {"status", "observedGeneration"}) >=
                                    IntAt(sts, {"metadata", "generation"});
  }

  const DcsResolution& dcs = *in.dcs;
  status.conditions.push_back(
      MakeCondition(cluster, "DCSReady", dcs.ready, dcs.reason, dcs.message, in.now));

  bool is_ready = false;
  std::string reason, message;
  if (!dcs.ready) {
    reason = "DCSNotReady";
    message = dcs.message;
  } else if (!in.problem.empty()) {
    reason = "Error";
    message = in.problem;
  } else if (in.primary.empty()) {
    reason = "NoPrimary";
    message = absl::StrCat("no member leads yet (", ready, "/", desired, " ready)");
  } else if (ready < desired) {
    reason = "InstancesNotReady";
    message = absl::StrCat(ready, "/", desired, " members ready; primary ", in.primary);
  } else {
    is_ready = true;
    reason = "AllInstancesReady";
    message = absl::StrCat(ready, "/", desired, " members ready; primary ", in.primary);
  }
  status.conditions.push_back(MakeCondition(cluster, "Ready", is_ready, reason, message, in.now));
  const bool progressing = !rolled || ready < desired;
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
  return status;
}

}  // namespace quorum::postgrescluster
