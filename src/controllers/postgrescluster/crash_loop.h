// A leader that crash-loops keeps Patroni's leader lock: every start of its
// container renews the lock (Patroni resumes as primary when it restarts
// holding the lock), the kubelet's back-off (10 s, 20 s, 40 s ...) keeps the
// gaps below the lock's ttl for the first restarts, and the member never runs
// long enough to serve. The replicas, which only take over when the lock
// expires, wait while writes fail. The operator ends that lock early — what
// its expiry would do — when the kubelet itself says the leader's database
// container is not running and waits to be restarted (CrashLoopBackOff), and
// another member is a healthy replica that can win Patroni's leader race.
// Patroni decides who leads after that; the operator only removes the dead
// holder's lock, in one compare-and-delete (its value must still name it).
//
// PlanLockRelease is pure; ReleaseLeaderLock writes the DCS (etcd: a
// transaction; kubernetes: a patch of the leader Endpoints' `leader`
// annotation, guarded by its resourceVersion) and records an event.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_CRASH_LOOP_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_CRASH_LOOP_H_

#include <optional>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/runtime/cache.h"

namespace quorum::postgrescluster {

// The lock to end: the leader holding it and the replicas that can take over.
struct LockRelease {
  std::string leader;
  std::vector<std::string> candidates;  // pod not deleted, Patroni reachable, replica running
  bool operator==(const LockRelease&) const = default;
};

// Whether pod `pod`'s database container (names.h kContainerName) waits in
// CrashLoopBackOff: not running, held back by the kubelet. Pure.
bool DatabaseCrashLooping(const Json& pod);

// The lock to end, or nullopt: the DCS leader (members.leader, read from the
// DCS, not the members' word) must name a pod of `pods` whose database
// container crash-loops and whose Patroni does not answer, and at least one
// other member must be a candidate. Pure.
std::optional<LockRelease> PlanLockRelease(const std::vector<runtime::ObjectPtr>& pods,
                                           const Members& members);

// Acts on PlanLockRelease's `plan` (member_plan.h takes it as a step): ends
// the lock in the DCS if it still names the crash-looping leader, then a
// LeaderLockReleased Warning event. Returns true when it ended a lock. A DCS
// error is logged and evented (the next pod event or reconcile tries again),
// never fatal.
bool ReleaseLeaderLock(const Phase& p, const DcsResolution& dcs, const LockRelease& plan);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_CRASH_LOOP_H_
