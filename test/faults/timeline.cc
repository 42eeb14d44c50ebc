#include "test/faults/timeline.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace quorum::faults {

WriteSummary SummarizeWrites(const std::vector<WriteAttempt>& attempts) {
  WriteSummary s;
  absl::Time last_ok = absl::InfinitePast();
  bool failing = false;
  Outage current;
  for (const WriteAttempt& a : attempts) {
    ++s.attempts;
    if (a.acknowledged) {
      ++s.acknowledged;
      if (failing) {
        current.to = a.at;
        s.outages.push_back(current);
        failing = false;
      }
      last_ok = a.at;
      continue;
    }
    if (a.sqlstate == kReadOnlySqlState) ++s.read_only_refusals;
    if (!failing) {
      failing = true;
      current = Outage{.from = last_ok == absl::InfinitePast() ? a.at : last_ok};
    }
    current.to = a.at;
  }
  if (failing) {
    current.recovered = false;
    s.outages.push_back(current);
  }
  for (const Outage& o : s.outages) s.longest = std::max(s.longest, o.length());
  return s;
}

std::vector<int64_t> LostWrites(const std::vector<WriteAttempt>& attempts,
                                const std::set<int64_t>& present) {
  std::vector<int64_t> lost;
  for (const WriteAttempt& a : attempts) {
    if (a.acknowledged && !present.contains(a.id)) lost.push_back(a.id);
  }
  return lost;
}

void PrimaryTracker::OnPod(const std::string& pod, bool labelled_primary, absl::Time at) {
  const bool was_two = labelled_.size() >= 2;
  if (labelled_primary) {
    labelled_.insert(pod);
  } else {
    labelled_.erase(pod);
  }
  const bool is_two = labelled_.size() >= 2;
  max_labelled_ = std::max(max_labelled_, static_cast<int>(labelled_.size()));
  if (!was_two && is_two) labelled_since_ = at;
  if (was_two && !is_two) {
    two_labelled_ += at - labelled_since_;
    labelled_since_ = absl::InfiniteFuture();
  }
}

void PrimaryTracker::OnSlice(const std::string& slice, int ready_addresses, absl::Time at) {
  auto total = [this] {
    int n = 0;
    for (const auto& [name, count] : slices_) n += count;
    return n;
  };
  const bool was_two = total() >= 2;
  if (ready_addresses <= 0) {
    slices_.erase(slice);
  } else {
    slices_[slice] = ready_addresses;
  }
  const int now_total = total();
  max_addresses_ = std::max(max_addresses_, now_total);
  if (!was_two && now_total >= 2) addressed_since_ = at;
  if (was_two && now_total < 2) {
    two_addressed_ += at - addressed_since_;
    addressed_since_ = absl::InfiniteFuture();
  }
}

absl::Duration PrimaryTracker::two_primaries(absl::Time now) const {
  return two_labelled_ + (labelled_since_ < now ? now - labelled_since_ : absl::ZeroDuration());
}

absl::Duration PrimaryTracker::two_addresses(absl::Time now) const {
  return two_addressed_ + (addressed_since_ < now ? now - addressed_since_ : absl::ZeroDuration());
}

int ReadyDuringOutage(const std::vector<ReadySample>& samples, const std::vector<Outage>& outages,
                      StatusSlack slack) {
  int lies = 0;
  for (const ReadySample& s : samples) {
    if (!s.ready) continue;
    for (const Outage& o : outages) {
      if (s.at > o.from + slack.lag && s.at < o.to - slack.lead) {
        ++lies;
        break;
      }
    }
  }
  return lies;
}

absl::Duration Percentile(std::vector<absl::Duration> values, double p) {
  if (values.empty()) return absl::ZeroDuration();
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(i, values.size() - 1)];
}

std::string EtcdReadBackProblem(const std::vector<EtcdRead>& reads) {
  int64_t previous = 0;
  for (const EtcdRead& r : reads) {
    if (r.mod_revision == 0) return absl::StrCat("acknowledged put ", r.id, " is missing");
    if (r.mod_revision != r.put_revision) {
      return absl::StrCat("put ", r.id, " was acknowledged at revision ", r.put_revision,
                          " but reads back at ", r.mod_revision);
    }
    if (r.put_revision <= previous) {
      return absl::StrCat("put ", r.id, " has revision ", r.put_revision,
                          ", not after the previous acknowledged put's ", previous);
    }
    previous = r.put_revision;
  }
  return "";
}

}  // namespace quorum::faults
