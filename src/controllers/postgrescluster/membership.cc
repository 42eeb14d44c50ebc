#include "src/controllers/postgrescluster/membership.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/controllers/postgrescluster/handover.h"

namespace quorum::postgrescluster {

std::optional<int> OrdinalIn(const std::string& statefulset, const std::string& pod) {
  const std::string prefix = statefulset + "-";
  if (pod.size() <= prefix.size() || pod.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const std::string digits = pod.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return absl::ascii_isdigit(c); })) {
    return std::nullopt;
  }
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  int ordinal = 0;
  if (!absl::SimpleAtoi(digits, &ordinal)) return std::nullopt;
  return ordinal;
}

namespace {

// The pods of `set` that its change removes: every pod of a removed set,
// else those with an ordinal at or above the desired replicas.
std::vector<const MemberPod*> Leaving(const SetScale& set, const std::vector<MemberPod>& pods) {
  std::vector<const MemberPod*> out;
  for (const MemberPod& p : pods) {
    std::optional<int> ordinal = OrdinalIn(set.statefulset, p.name);
    if (ordinal.has_value() && (set.removed || *ordinal >= set.desired)) out.push_back(&p);
  }
  return out;
}

std::string Names(const std::vector<const MemberPod*>& pods) {
  return absl::StrJoin(pods, ", ",
                       [](std::string* out, const MemberPod* p) { out->append(p->name); });
}

// What removing `leaving` means, for the events.
std::string Removal(const SetScale& set, const std::vector<const MemberPod*>& leaving) {
  if (set.removed) {
    return absl::StrCat("removing instance set StatefulSet ", set.statefulset, " (members ",
                        Names(leaving), "; their claims are kept)");
  }
  return absl::StrCat("scaling ", set.statefulset, " down to ", set.desired, " (removing ",
                      Names(leaving), "; their claims are kept)");
}

}  // namespace

MembershipPlan PlanMembership(const std::vector<SetScale>& sets, const std::vector<MemberPod>& pods,
                              const std::string& first) {
  MembershipPlan plan;
  std::set<std::string> leaving_names;
  std::vector<std::pair<const SetScale*, std::vector<const MemberPod*>>> shrinking;
  for (const SetScale& set : sets) {
    std::vector<const MemberPod*> leaving = Leaving(set, pods);
    for (const MemberPod* p : leaving) leaving_names.insert(p->name);
    const bool shrinks = set.removed || (set.current.has_value() && set.desired < *set.current);
    if (!shrinks) continue;
    if (leaving.empty()) {  // nobody leaves: nothing to wait for
      if (set.removed) plan.delete_sets.push_back(set.statefulset);
      continue;
    }
    shrinking.emplace_back(&set, std::move(leaving));
  }
  const MemberPod* primary = nullptr;
  for (const MemberPod& p : pods) {
    if (p.primary) primary = &p;
  }
  bool stepped = false;
  for (const auto& [set, leaving] : shrinking) {
    const auto hold = [&, set = set](std::string why) {
      if (!set->removed) plan.hold[set->statefulset] = *set->current;
      if (plan.waiting.empty() && !why.empty()) plan.waiting = std::move(why);
    };
    const std::string removal = Removal(*set, leaving);
    if (stepped) {
      hold("");  // one risky step per reconcile: the next one comes back
      continue;
    }
    if (!first.empty()) {
      hold(absl::StrCat("waiting for ", first, " before ", removal));
      continue;
    }
    const bool any_started =
        std::any_of(leaving.begin(), leaving.end(), [](const MemberPod* p) { return !p->pending; });
    if (primary == nullptr && any_started) {
      hold("waiting for a known primary before " + removal);
      continue;
    }
    const bool primary_leaves =
        primary != nullptr && std::find(leaving.begin(), leaving.end(), primary) != leaving.end();
    if (!primary_leaves) {
      if (set->removed) plan.delete_sets.push_back(set->statefulset);
      plan.step = removal;
      stepped = true;
      continue;
    }
    // The primary leaves: a member that stays takes over first (handover.h).
    const Handover handover = FindHandover(pods, leaving_names);
    const MemberPod* candidate = handover.candidate;
    const bool anyone_stays = std::any_of(pods.begin(), pods.end(), [&](const MemberPod& p) {
      return !leaving_names.contains(p.name);
    });
    if (!anyone_stays) {  // the cluster stops: nobody could take over
      if (set->removed) plan.delete_sets.push_back(set->statefulset);
      plan.step = removal;
      stepped = true;
      continue;
    }
    if (candidate == nullptr) {
      hold(absl::StrCat("waiting for ",
                        HandoverWait(handover, "a ready member that stays", primary->name),
                        " before ", removal));
      continue;
    }
    hold("");
    plan.switchover = MembershipPlan::Switchover{.from = primary->name, .to = candidate->name};
    plan.step = absl::StrCat("moving the primary role from ", primary->name, " to ",
                             candidate->name, " before ", removal);
    stepped = true;
  }
  return plan;
}

}  // namespace quorum::postgrescluster
