// The rolling-update phase: observes which members run an outdated pod
// revision (MemberPods) and takes the step NextRollStep (rollout.h, pure)
// plans: one pod deleted or one switchover away from an outdated primary.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLL_MEMBERS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLL_MEMBERS_H_

#include <string>
#include <vector>

#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/rollout.h"
#include "src/patroni/rest_client.h"

namespace quorum::postgrescluster {

// The member pods as the rollout and member removal see them (revision,
// readiness, primary, streaming from it).
std::vector<MemberPod> MemberPods(const PostgresCluster& cluster, const runtime::Cache& cache,
                                  const std::vector<runtime::ObjectPtr>& pods,
                                  const Members& members);

// Takes the rollout's `step` (NextRollStep; member_plan.h decides whether it
// is this reconcile's risky step): deletes the pod (the StatefulSets are
// OnDelete) or asks Patroni for the switchover; evented either way, a
// failure as a Warning (the next reconcile plans again). Other kinds: no-op.
void TakeRollStep(const Phase& p, const RollStep& step, const Members& members,
                  patroni::RestClient& rest);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLL_MEMBERS_H_
