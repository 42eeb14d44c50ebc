#include "src/controllers/postgrescluster/roll_members.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/postgrescluster.h"
#include "src/base/failpoint.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/reconciler.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

// The member pods as the rollout sees them.
std::vector<MemberPod> MemberPods(const PostgresCluster& cluster, const runtime::Cache& cache,
                                  const std::vector<ObjectPtr>& pods, const Members& members) {
  const Names n = NamesOf(cluster);
  auto primary_role = members.roles.find(members.primary);
  const std::vector<std::string> streaming = primary_role == members.roles.end()
                                                 ? std::vector<std::string>{}
                                                 : primary_role->second.streaming_to;
  std::vector<MemberPod> out;
  for (const ObjectPtr& pod : pods) {
    const Json& labels = At(*pod, {"metadata", "labels"});
    const std::string set = Str(At(labels, {std::string(api::kInstanceSetLabel).c_str()}));
    ObjectPtr sts = cache.Get(kStatefulSets, n.ns, StatefulSetName(cluster, set));
    const std::string revision = sts ? Str(At(*sts, {"status", "updateRevision"})) : "";
    MemberPod m{.name = Str(At(*pod, {"metadata", "name"}))};
    m.outdated = !revision.empty() && Str(At(labels, {"controller-revision-hash"})) != revision;
    m.primary = m.name == members.primary;
    m.streaming = std::find(streaming.begin(), streaming.end(), m.name) != streaming.end();
    m.pending = Str(At(*pod, {"status", "phase"})) == "Pending";
    for (const Json& c : At(*pod, {"status", "conditions"})) {
      if (Str(At(c, {"type"})) == "Ready") m.ready = Str(At(c, {"status"})) == "True";
    }
    out.push_back(m);
  }
  return out;
}

void TakeRollStep(const Phase& p, const RollStep& step, const Members& members,
                  patroni::RestClient& rest) {
  if (step.kind != RollStep::kDeletePod && step.kind != RollStep::kSwitchover) return;
  absl::Status s;
  Failpoint("postgrescluster/before-RollingUpdate");
  if (step.kind == RollStep::kDeletePod) {
    s = p.client.Delete(kPods, p.n.ns, step.pod);
    if (absl::IsNotFound(s)) s = absl::OkStatus();
  } else {
    auto url = members.urls.find(step.pod);
    s = url == members.urls.end()
            ? absl::UnavailableError("its REST API has no address")
            : rest.Switchover(url->second, step.pod, step.candidate, p.rest_auth);
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

}  // namespace quorum::postgrescluster
