// The member the primary role may move to in a switchover the operator
// starts (a member removal, membership.h; a rollout, rollout.h): one that is
// ready, is not the primary, and that the primary's WAL streams to now. A
// switchover shuts the primary down cleanly, which ends only once its
// connected standbys have flushed all its WAL; a member that is not
// connected (just re-pointed after another switchover, or catching up from
// the archive) would be promoted without the last acknowledged writes.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_HANDOVER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_HANDOVER_H_

#include <set>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/rollout.h"

namespace quorum::postgrescluster {

struct Handover {
  // The lowest-named such member (the StatefulSets' own order); null: none.
  const MemberPod* candidate = nullptr;
  // Some member other than the primary (and not excluded) is ready,
  // streaming or not: the wait is for streaming, not for readiness.
  bool any_ready = false;
};

// Among `pods`, leaving out those named in `excluded` (members that leave).
Handover FindHandover(const std::vector<MemberPod>& pods,
                      const std::set<std::string>& excluded = {});

// Why no candidate was found, for a wait's reason: "a ready replica to
// stream from <primary>" when one is ready, "a ready replica to take over the
// primary role from <primary>" otherwise. `who` names the replicas ("a ready
// replica", "a ready member that stays").
std::string HandoverWait(const Handover& h, const std::string& who, const std::string& primary);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_HANDOVER_H_
