#include "src/controllers/postgrescluster/rollout.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/controllers/postgrescluster/handover.h"

namespace quorum::postgrescluster {

RollStep NextRollStep(const std::vector<MemberPod>& pods, int desired, const std::string& first) {
  std::vector<const MemberPod*> outdated;
  for (const MemberPod& p : pods) {
    if (p.outdated) outdated.push_back(&p);
  }
  if (outdated.empty()) return {};
  const bool all_ready =
      std::all_of(pods.begin(), pods.end(), [](const MemberPod& p) { return p.ready; });
  const MemberPod* known_primary = nullptr;
  for (const MemberPod& p : pods) {
    if (p.primary) known_primary = &p;
  }
  // An outdated replica that is not ready serves nobody: replacing it costs
  // no availability, and its new pod may be what heals it (a fixed setting;
  // Patroni's divergence check, which only runs when it starts PostgreSQL).
  if (!all_ready && known_primary != nullptr && known_primary->ready && first.empty()) {
    const MemberPod* stuck = nullptr;
    for (const MemberPod* p : outdated) {
      if (!p->primary && !p->ready && (stuck == nullptr || p->name > stuck->name)) stuck = p;
    }
    if (stuck != nullptr) {
      return {.kind = RollStep::kDeletePod,
              .pod = stuck->name,
              .reason = "replacing replica " + stuck->name +
                        ", which is not ready, with the current spec"};
    }
  }
  if (!all_ready || static_cast<int>(pods.size()) < desired) {
    return {.kind = RollStep::kWait,
            .reason = "waiting for every member to be ready before replacing the next one"};
  }
  if (known_primary == nullptr) {
    return {.kind = RollStep::kWait,
            .reason = "waiting for a known primary before replacing any member"};
  }
  if (!first.empty()) {
    return {.kind = RollStep::kWait,
            .reason = absl::StrCat("waiting for ", first, " before replacing the next member")};
  }
  // Replicas first, highest name first (the StatefulSet's own habit).
  const MemberPod* replica = nullptr;
  for (const MemberPod* p : outdated) {
    if (!p->primary && (replica == nullptr || p->name > replica->name)) replica = p;
  }
  if (replica != nullptr) {
    return {.kind = RollStep::kDeletePod,
            .pod = replica->name,
            .reason = "replacing replica " + replica->name + " with the current spec"};
  }
  const MemberPod* primary = outdated.front();  // every outdated replica is gone: the primary
  if (pods.size() > 1) {
    // The same evidence as a member removal's switchover (handover.h).
    const Handover handover = FindHandover(pods);
    if (handover.candidate == nullptr) {
      return {.kind = RollStep::kWait,
              .reason = "waiting for " + HandoverWait(handover, "a ready replica", primary->name) +
                        " before moving the primary role away from it"};
    }
    return {.kind = RollStep::kSwitchover,
            .pod = primary->name,
            .candidate = handover.candidate->name,
            .reason = "moving the primary role from " + primary->name + " to " +
                      handover.candidate->name + " before replacing it"};
  }
  return {.kind = RollStep::kDeletePod,
          .pod = primary->name,
          .reason = "restarting the only member " + primary->name + " with the current spec"};
}

}  // namespace quorum::postgrescluster
