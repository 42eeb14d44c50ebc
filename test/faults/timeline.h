// Pure bookkeeping of the fault table's checkers: what the writer saw, which
// pods carried role=primary, where the primary Service pointed, and what the
// resources' status said — and the verdicts drawn from them. No I/O, no
// clock: callers pass the times. Thread-compatible (callers lock).
#ifndef QUORUM_TEST_FAULTS_TIMELINE_H_
#define QUORUM_TEST_FAULTS_TIMELINE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace quorum::faults {

// One write: an INSERT through the primary Service, or an etcd put.
struct WriteAttempt {
  absl::Time at;
  int64_t id = 0;
  bool acknowledged = false;
  int64_t revision = 0;  // an acknowledged etcd put's revision
  // On failure: the SQLSTATE (25006 = read-only transaction) or "" for a
  // connection error or timeout.
  std::string sqlstate;
};

inline constexpr char kReadOnlySqlState[] = "25006";

struct Outage {
  absl::Time from;  // the last acknowledged write before the failures
  absl::Time to;    // the first acknowledged write after them (or the last attempt)
  bool recovered = true;
  absl::Duration length() const { return to - from; }
};

struct WriteSummary {
  int64_t attempts = 0;
  int64_t acknowledged = 0;
  int64_t read_only_refusals = 0;  // writes that reached a member in recovery
  std::vector<Outage> outages;     // runs of failed writes, in order
  absl::Duration longest = absl::ZeroDuration();
};

// Attempts in time order.
WriteSummary SummarizeWrites(const std::vector<WriteAttempt>& attempts);

// Acknowledged ids absent from `present` (what a read after the run found).
std::vector<int64_t> LostWrites(const std::vector<WriteAttempt>& attempts,
                                const std::set<int64_t>& present);

// An acknowledged etcd put read back after the run.
struct EtcdRead {
  int64_t id = 0;
  int64_t put_revision = 0;  // what the put answered
  int64_t mod_revision = 0;  // what the read found; 0 when the key is gone
};

// "" when every acknowledged put is there with the revision it was given and
// the revisions grow with the ids (etcd applied them in the order they were
// acknowledged); otherwise the first problem, in words. `reads` in id order.
std::string EtcdReadBackProblem(const std::vector<EtcdRead>& reads);

// Which pods carry role=primary and how many addresses the primary Service's
// EndpointSlices list, from watch events in order.
class PrimaryTracker {
 public:
  void OnPod(const std::string& pod, bool labelled_primary, absl::Time at);
  void OnPodGone(const std::string& pod, absl::Time at) { OnPod(pod, false, at); }
  // `ready_addresses` of one EndpointSlice of the primary Service (0 when gone).
  void OnSlice(const std::string& slice, int ready_addresses, absl::Time at);

  int max_labelled() const { return max_labelled_; }
  int max_addresses() const { return max_addresses_; }
  // Total time two or more pods carried the label (open overlap up to `now`).
  absl::Duration two_primaries(absl::Time now) const;
  absl::Duration two_addresses(absl::Time now) const;

 private:
  std::set<std::string> labelled_;
  std::map<std::string, int> slices_;
  int max_labelled_ = 0;
  int max_addresses_ = 0;
  absl::Duration two_labelled_ = absl::ZeroDuration();
  absl::Duration two_addressed_ = absl::ZeroDuration();
  absl::Time labelled_since_ = absl::InfiniteFuture();
  absl::Time addressed_since_ = absl::InfiniteFuture();
};

// One look at a resource's Ready condition.
struct ReadySample {
  absl::Time at;
  bool ready = false;
};

// How far a resource's Ready condition may trail its data path. `lag`: once
// writes fail, what the fault's fastest signal takes to reach the status.
// `lead`: how long before writes succeed again Ready may already be True —
// the status follows the member, the Service's routing follows the status
// (the EndpointSlice, then kube-proxy's rules, synced at most once a second).
struct StatusSlack {
  absl::Duration lag;
  absl::Duration lead;
};

// Samples that said Ready=True while writes failed, more than `slack.lag`
// after they began and more than `slack.lead` before they succeeded again
// (status that hides an outage).
int ReadyDuringOutage(const std::vector<ReadySample>& samples, const std::vector<Outage>& outages,
                      StatusSlack slack);

// p-th percentile (0..100) by nearest rank; zero for an empty list. Pure.
absl::Duration Percentile(std::vector<absl::Duration> values, double p);

}  // namespace quorum::faults

#endif  // QUORUM_TEST_FAULTS_TIMELINE_H_
