// The member-removal phase (membership.h decides, as part of member_plan.h):
// observes the instance StatefulSets — the spec's and those of sets no longer
// in it — with what else the member plan reads, and after the owned objects
// are applied (with the planned holds) takes the planned step: the switchover
// away from a leaving primary, or the deletion of a removed set's
// StatefulSet; each evented.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_REMOVE_MEMBERS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_REMOVE_MEMBERS_H_

#include <vector>

#include "absl/status/status.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/member_plan.h"
#include "src/controllers/postgrescluster/membership.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/cache.h"

namespace quorum::postgrescluster {

// The instance sets as the spec wants them and the cache holds them, with
// the StatefulSets of removed sets (labelled as this cluster's instance set,
// not named by the spec).
std::vector<SetScale> ObserveSets(const Phase& p);

// What PlanMemberSteps (member_plan.h) decides from: the sets, the member
// pods with their revisions and roles, the crash-looping leader's lock to end
// (only with the DCS resolved), whether the user's switchover acts now and
// whether a major upgrade holds the members.
MemberObservation ObserveMemberChanges(const Phase& p, const DcsResolution& dcs,
                                       const std::vector<runtime::ObjectPtr>& pods,
                                       const Members& members);

// Takes the plan's step: deletes the removed sets' StatefulSets (their pods
// go; the claims stay), or asks Patroni for the switchover. Errors: the
// deletion's (a refused switchover is a Warning event, retried on the next
// reconcile). A waiting plan is a Normal event.
absl::Status RemoveMembers(const Phase& p, const MembershipPlan& plan, const Members& members,
                           patroni::RestClient& rest);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_REMOVE_MEMBERS_H_
