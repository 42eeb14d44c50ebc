#include "src/patroni/role_plan.h"

#include <utility>

#include "src/patroni/role.h"

namespace quorum::patroni {

void PrintTo(const LabelPatch& p, std::ostream* os) {
  *os << "{" << p.pod << " -> " << p.label.value_or("(none)") << "}";
}

bool ServesAsPrimary(const ObservedRole& observed) {
  return observed.reachable && RoleLabelValue(observed.role) == kPrimaryLabelValue &&
         observed.state == "running";
}

std::vector<LabelPatch> PlanRoleLabels(const std::vector<PodRoleLabel>& pods,
                                       const std::map<std::string, ObservedRole>& observed,
                                       const std::optional<std::string>& leader) {
  auto may_lead = [&](const std::string& pod) { return !leader || *leader == pod; };
  // The label each reachable member should carry; "" stands for no label
  // (plain strings: GCC 12 warns falsely on copies of optional<string>).
  std::map<std::string, std::string> desired;
  bool confirmed_primary = false;
  for (const PodRoleLabel& p : pods) {
    auto it = observed.find(p.pod);
    if (it == observed.end() || !it->second.reachable) continue;
    std::string label = RoleLabelValue(it->second.role).value_or("");
    if (label == kPrimaryLabelValue && (!ServesAsPrimary(it->second) || !may_lead(p.pod))) {
      label.clear();
    }
    if (label == kPrimaryLabelValue) confirmed_primary = true;
    desired[p.pod] = std::move(label);
  }
  std::vector<LabelPatch> removals, rest;
  for (const PodRoleLabel& p : pods) {
    const std::string have = p.label.value_or("");
    std::string want;
    if (auto it = desired.find(p.pod); it != desired.end()) {
      want = it->second;
    } else if (have != kPrimaryLabelValue) {
      continue;  // unreachable: what it has is the best knowledge
    } else if (!p.restarting && may_lead(p.pod) && !(confirmed_primary && !leader)) {
      continue;  // an unreachable leader (or, without the key, no one else confirmed) keeps it
    }            // else: an unreachable former primary, or a restarting one, loses its label
    if (want == have && p.label.has_value() == !want.empty()) continue;
    LabelPatch patch{p.pod, std::nullopt};
    if (!want.empty()) patch.label = want;
    (have == kPrimaryLabelValue ? removals : rest).push_back(std::move(patch));
  }
  for (LabelPatch& p : rest) removals.push_back(std::move(p));
  return removals;
}

}  // namespace quorum::patroni
