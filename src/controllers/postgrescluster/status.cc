#include "src/controllers/postgrescluster/status.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/json_path.h"
#include "src/runtime/conditions.h"

namespace quorum::postgrescluster {

namespace {
int IntAt(const Json& j, std::initializer_list<const char*> path, int fallback = 0) {
  const Json& v = At(j, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
}
}  // namespace

Json BuildStatus(const StatusInput& in) {
  const Json& cluster = *in.cluster;
  const Names n = NamesOf(cluster);
  Json instances = Json::array();
  int desired = 0, ready = 0, updated = 0;
  bool rolled = true;
  if (const Json& sets = At(cluster, {"spec", "instances"}); sets.is_array()) {
    for (const Json& set : sets) {
      const std::string name = Str(At(set, {"name"}));
      const int want = IntAt(set, {"replicas"}, api::kDefaultInstanceReplicas);
      auto it = in.statefulsets.find(name);
      const Json sts = it == in.statefulsets.end() ? Json() : it->second;
      const int have_ready = IntAt(sts, {"status", "readyReplicas"});
      const int have_updated = IntAt(sts, {"status", "updatedReplicas"});
      instances.push_back({{"name", name},
                           {"replicas", IntAt(sts, {"status", "replicas"})},
                           {"readyReplicas", have_ready},
                           {"updatedReplicas", have_updated}});
      desired += want;
      ready += std::min(have_ready, want);
      updated += have_updated;
      rolled &= !sts.is_null() && IntAt(sts, {"status", "observedGeneration"}) >=
                                      IntAt(sts, {"metadata", "generation"});
    }
  }

  Json conditions = Json::array();
  const DcsResolution& dcs = *in.dcs;
  conditions.push_back(
      runtime::MakeCondition(cluster, "DCSReady", dcs.ready, dcs.reason, dcs.message, in.now));

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
  conditions.push_back(runtime::MakeCondition(cluster, "Ready", is_ready, reason, message, in.now));
  const bool progressing = !rolled || ready < desired;
  conditions.push_back(runtime::MakeCondition(
      cluster, "Progressing", progressing, progressing ? "Reconciling" : "Stable",
      progressing ? "members are being created or updated" : "every member runs the current spec",
      in.now));

  const Json& old_conditions = At(cluster, {"status", "conditions"});
  const bool had_storage =
      old_conditions.is_array() &&
      std::any_of(old_conditions.begin(), old_conditions.end(),
                  [](const Json& c) { return c.is_object() && c.value("type", "") == "Storage"; });
  if (!in.storage.reason.empty() || had_storage) {
    const bool ok = in.storage.reason.empty();
    conditions.push_back(runtime::MakeCondition(
        cluster, "Storage", ok, ok ? "AsRequested" : in.storage.reason,
        ok ? "Every volume has the size and labels the instance sets ask for" : in.storage.message,
        in.now));
  }

  Json users = Json::array();
  if (const Json& us = At(cluster, {"spec", "users"}); us.is_array()) {
    for (const Json& u : us) {
      const std::string name = Str(At(u, {"name"}));
      users.push_back({{"name", name}, {"secretName", UserSecretName(cluster, name)}});
    }
  }

  Json status = {{"observedGeneration", IntAt(cluster, {"metadata", "generation"})},
                 {"conditions", conditions},
                 {"instances", instances},
                 {"readyInstances", absl::StrCat(ready, "/", desired)},
                 {"primaryService", n.primary_service},
                 {"replicaService", n.replica_service},
                 {"users", users}};
  if (!in.primary.empty()) status["primary"] = in.primary;
  Json patroni = At(cluster, {"status", "patroni"}).is_object() ? At(cluster, {"status", "patroni"})
                                                                : Json::object();
  if (!in.system_identifier.empty()) patroni["systemIdentifier"] = in.system_identifier;
  if (!in.switchover.is_null()) patroni["switchover"] = in.switchover;
  if (!patroni.empty()) status["patroni"] = patroni;
  return status;
}

}  // namespace quorum::postgrescluster
