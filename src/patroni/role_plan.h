// The pure decision behind the pods' `role` labels (role_sync.h does the
// I/O): from each pod's current label, what the operator observed of each
// member, and the DCS leader key, which label patches to make.
//
// Rules (the table in role.h maps a Patroni role to a label):
//  * The DCS leader key is the only truth for `primary`. When it was read
//    (`leader` has a value), only the member it names may carry `primary`,
//    and none when it names nobody; a member labelled primary that is not
//    the leader loses the label even when it cannot be reached (a member cut
//    off the network keeps claiming primary until its lease runs out).
//  * A member is labelled primary only while it accepts writes: reachable,
//    Patroni's role is primary (or standby leader) and its state is running.
//    A leader that restarts PostgreSQL read-only after a crash reports role
//    replica until it is promoted again, so it is labelled replica meanwhile
//    (Patroni's /primary and /read-write answer 200 then, since the leader
//    refreshes its lock before starting; they do not tell writability).
//  * Without the leader key (`leader` nullopt: the DCS could not be read, or
//    the caller has none), the members' own word decides; an unreachable
//    member labelled primary loses it only when another member is the
//    confirmed primary, else it keeps its label (the best knowledge).
//  * An unreachable member whose pod is restarting (not Ready, its container
//    restarted since: a crash, not a failing probe) loses `primary`, even the
//    leader: it is out of every Service then, so nothing is lost, and a leader
//    whose PostgreSQL crashed comes back read-only (see above) — still
//    labelled primary, its pod would rejoin the primary Service the moment
//    its readiness probe passes, before the operator hears Patroni's new role.
//    A pod merely failing its probe (a busy machine) keeps the label, so it
//    serves again as soon as the probe passes.
//  * Other reachable members get the label of their role; unreachable ones
//    keep theirs.
//  * Order: every patch that takes `primary` away comes before any patch
//    that gives it, so that applied in order two pods never carry it at once
//    (ApplyRoleLabels stops before giving it when a removal failed).
//  * Nothing is patched when every label is right.
// Members are matched to pods by name (Patroni's member name is the pod name).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_ROLE_PLAN_H_
#define QUORUM_SRC_PATRONI_ROLE_PLAN_H_

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace quorum::patroni {

struct PodRoleLabel {
  std::string pod;
  std::optional<std::string> label;  // current value of the role label; nullopt: none
  bool restarting = false;           // controllers::PodRestartingUnready
};

// What the operator learned about one member (GET /patroni).
struct ObservedRole {
  bool reachable = false;
  std::string role;   // Patroni's role word ("role"); reachable only
  std::string state;  // Patroni's PostgreSQL state ("state": running, starting, ...)
  // A primary's: the members its WAL streams to now (MemberStatus::streaming_to).
  std::vector<std::string> streaming_to;
};

struct LabelPatch {
  std::string pod;
  std::optional<std::string> label;  // new value; nullopt removes the label
  bool operator==(const LabelPatch&) const = default;
};
void PrintTo(const LabelPatch& p, std::ostream* os);

// Whether `observed` is a member that accepts writes (or leads a standby
// cluster): reachable, a primary role, state running. Not the leader check.
bool ServesAsPrimary(const ObservedRole& observed);

// Pods missing from `observed` count as unreachable. `leader`: the DCS
// leader key's member name ("" when the key is absent), or nullopt when it
// was not read.
std::vector<LabelPatch> PlanRoleLabels(const std::vector<PodRoleLabel>& pods,
                                       const std::map<std::string, ObservedRole>& observed,
                                       const std::optional<std::string>& leader = std::nullopt);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_ROLE_PLAN_H_
