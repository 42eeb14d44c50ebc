#include "src/controllers/postgrescluster/crash_loop.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/observe.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/client.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

namespace {

// A member that can win Patroni's leader race: its pod not being deleted,
// its Patroni answering as a replica whose PostgreSQL runs. Not "its pod
// Ready": a replica is Ready only while it streams from a leader (Patroni's
// /readiness), so with the leader dead for a few probe periods no replica is
// Ready; Patroni's own race still weighs their lag before one promotes.
bool Candidate(const Json& pod, const patroni::ObservedRole& role) {
  return !At(pod, {"metadata", "deletionTimestamp"}).is_string() && role.reachable &&
         role.role == "replica" && (role.state == "streaming" || role.state == "running");
}

// Ends the etcd DCS's leader key while it names `leader`.
absl::StatusOr<bool> ReleaseInEtcd(const Phase& p, const DcsResolution& dcs,
                                   const std::string& leader) {
  absl::StatusOr<etcd::ClientConfig> config =
      EtcdClientConfigFor(dcs, SecretValueFrom(p.cache, p.n.ns), kLeaderReadTimeout);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(*std::move(config));
  if (!client.ok()) return client.status();
  const patroni::ConfigInput input = BuildPatroniInput(p.cluster, dcs);
  return (*client)->DeleteIfValue(patroni::LeaderKey(input.key_namespace, input.scope), leader);
}

// Clears the kubernetes DCS's `leader` annotation (Patroni's leader
// Endpoints or ConfigMap) while it names `leader`: the patch carries the
// resourceVersion it was read at, so a concurrent renewal or take-over makes
// it a conflict.
absl::StatusOr<bool> ReleaseInKubernetes(const Phase& p, const std::string& leader) {
  const kube::GroupVersionResource& kind = UsesConfigMaps(p.cluster) ? kConfigMaps : kEndpoints;
  const std::string name = LeaderObjectName(p.cluster);
  ObjectPtr lock = p.cache.Get(kind, p.n.ns, name);
  if (lock == nullptr || LeaderFromObject(lock.get()) != leader) return false;
  const Json patch = {{"metadata",
                       {{"resourceVersion", Str(At(*lock, {"metadata", "resourceVersion"}))},
                        {"annotations", {{"leader", nullptr}}}}}};
  absl::StatusOr<Json> r = p.client.Patch(kind, p.n.ns, name, kube::PatchType::kMerge, patch);
  if (absl::IsAborted(r.status()) || absl::IsNotFound(r.status())) return false;  // changed
  if (!r.ok()) return r.status();
  return true;
}

}  // namespace

bool DatabaseCrashLooping(const Json& pod) {
  for (const Json& cs : At(pod, {"status", "containerStatuses"})) {
    if (Str(At(cs, {"name"})) != kContainerName) continue;
    return Str(At(cs, {"state", "waiting", "reason"})) == "CrashLoopBackOff";
  }
  return false;
}

std::optional<LockRelease> PlanLockRelease(const std::vector<ObjectPtr>& pods,
                                           const Members& members) {
  if (!members.leader.has_value() || members.leader->empty()) return std::nullopt;
  const std::string& leader = *members.leader;
  LockRelease out{.leader = leader};
  bool leader_down = false;
  for (const ObjectPtr& pod : pods) {
    const std::string name = Str(At(*pod, {"metadata", "name"}));
    auto role = members.roles.find(name);
    const bool reachable = role != members.roles.end() && role->second.reachable;
    if (name == leader) {
      leader_down = DatabaseCrashLooping(*pod) && !reachable;
    } else if (role != members.roles.end() && Candidate(*pod, role->second)) {
      out.candidates.push_back(name);
    }
  }
  if (!leader_down || out.candidates.empty()) return std::nullopt;
  return out;
}

bool ReleaseLeaderLock(const Phase& p, const DcsResolution& dcs, const LockRelease& plan) {
  if (!dcs.ready) return false;
  absl::StatusOr<bool> released = UsesEtcd(p.cluster) ? ReleaseInEtcd(p, dcs, plan.leader)
                                                      : ReleaseInKubernetes(p, plan.leader);
  if (!released.ok()) {
    const std::string message = absl::StrCat("ending the leader lock of crash-looping member ",
                                             plan.leader, ": ", released.status().message());
    spdlog::warn("{}/{}: {}", p.n.ns, p.n.cluster, message);
    p.recorder.Warning(p.stored, "LeaderLockReleaseFailed", message);
    return false;
  }
  if (!*released) return false;  // someone renewed or took it meanwhile
  const std::string message = absl::StrCat(
      "the leader ", plan.leader,
      "'s database container is in CrashLoopBackOff; ended its leader lock so that a healthy "
      "replica (",
      absl::StrJoin(plan.candidates, ", "),
      ") takes over instead of waiting for the lock, which each restart renews, to expire");
  spdlog::warn("{}/{}: {}", p.n.ns, p.n.cluster, message);
  p.recorder.Warning(p.stored, "LeaderLockReleased", message);
  return true;
}

}  // namespace quorum::postgrescluster
