// The wait phase: when to look again. Nothing while a watch signals the next
// change; capped backoff for what only the members' REST APIs show and for a
// user's Secret. No I/O (the backoff's clock is injected): table-tested.
// Thread-safety: as WaitBackoff (safe to share).
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NEXT_WAIT_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NEXT_WAIT_H_

#include <string>

#include "absl/time/time.h"
#include "src/controllers/common/wait.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/runtime/reconciler.h"

namespace quorum::postgrescluster {

// With the etcd DCS the pods may have no API rights (podAPIAccess: false) and
// the role callback is only a fast path: the operator's own look at the
// members is what keeps the primary Service on the leader after a failover
// that changes no pod. A change of the DCS leader key wakes the reconcile at
// once (leader_watch.h), so this look only catches what the key does not
// show (a leader that cannot take writes); capped at 30 s, it no longer keeps
// the workers busy probing members on dead nodes (issue 14.7).
inline constexpr absl::Duration kMaxRoleWait = absl::Seconds(30);

// What the members said, as one string: the backoff restarts when it changes.
std::string RolesSignature(const Members& members);

// Wait: nothing while a watch signals the next change, capped backoff for
// what only the members' REST APIs show and for a user's Secret.
runtime::Result NextWait(controllers::WaitBackoff& backoff, const runtime::Request& req,
                         const DcsResolution& dcs, const Members& members);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NEXT_WAIT_H_
