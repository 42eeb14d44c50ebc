#include "src/controllers/etcdbackupschedule/retention.h"

#include <algorithm>
#include <string>

namespace quorum::etcdbackupschedule {

absl::Time TakenAt(const api::ScheduledSnapshot& s) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, s.taken_at, &t, &err)) return absl::InfinitePast();
  return t;
}

RetentionDecision ApplyRetention(std::vector<api::ScheduledSnapshot> snapshots,
                                 const RetentionPolicy& policy, absl::Time now) {
  // Newest first; ties by name so the decision is stable.
  std::sort(snapshots.begin(), snapshots.end(), [](const auto& a, const auto& b) {
    const absl::Time ta = TakenAt(a), tb = TakenAt(b);
    return ta != tb ? ta > tb : a.backup > b.backup;
  });
  const bool limited = policy.keep_last > 0 || policy.keep_within > absl::ZeroDuration();
  RetentionDecision out;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const absl::Time taken = TakenAt(snapshots[i]);
    const bool keep =
        !limited || i == 0 || taken == absl::InfinitePast() ||
        (policy.keep_last > 0 && i < static_cast<size_t>(policy.keep_last)) ||
        (policy.keep_within > absl::ZeroDuration() && now - taken <= policy.keep_within);
    (keep ? out.keep : out.drop).push_back(std::move(snapshots[i]));
  }
  return out;
}

}  // namespace quorum::etcdbackupschedule
