// The rolling-update phase: observes which members run an outdated pod
// revision and takes the next step NextRollStep (rollout.h, pure) plans: one
// pod deleted or one switchover away from an outdated primary per reconcile.
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

// Rolls outdated members, one step at a time (the StatefulSets are OnDelete);
// waits while a new switchover trigger is handled in this reconcile (one risky
// step per reconcile).
void RollOutdatedMembers(const Phase& p, const std::vector<runtime::ObjectPtr>& pods,
                         const Members& members, patroni::RestClient& rest);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLL_MEMBERS_H_
