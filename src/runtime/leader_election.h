// Leader election on a coordination.k8s.io/v1 Lease, like client-go's
// leaderelection package: candidates race to write their identity into one
// Lease with optimistic concurrency (resourceVersion); the holder renews it
// every retry period; a candidate takes over only when the record it
// observed has stayed unchanged for a lease duration measured by its OWN
// clock (clocks of different machines are never compared), or at once when
// the holder released it on shutdown.
//
// The guarantee is the usual one for leases: if every candidate uses the same
// durations and clocks run at about the same rate, a holder that could not
// renew for renew_deadline (< lease_duration) stops leading before anyone else
// can take over.
//
// The pure decision (DecideLeaseAction and friends) is separate from the I/O
// (LeaderElector) so that it can be tested without a server or a clock.
#ifndef QUORUM_SRC_RUNTIME_LEADER_ELECTION_H_
#define QUORUM_SRC_RUNTIME_LEADER_ELECTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/base/clock.h"
#include "src/kube/client.h"
#include "src/runtime/metrics.h"

namespace quorum::runtime {

// ---------------------------------------------------------------- pure part

// The leader-election fields of a Lease's spec.
struct LeaderElectionRecord {
  std::string holder_identity;  // "" when nobody holds the lease (released)
  int64_t lease_duration_seconds = 0;
  absl::Time acquire_time = absl::InfinitePast();  // InfinitePast when absent
  absl::Time renew_time = absl::InfinitePast();
  int64_t lease_transitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

// What a candidate knows about the Lease: its record and when (by the local
// clock) that exact record was first seen.
struct LeaseObservation {
  bool exists = false;  // false: no Lease object yet
  LeaderElectionRecord record;
  absl::Time observed_at = absl::InfinitePast();
};

enum class LeaseAction {
  kAcquire,  // write our identity (create the Lease if it does not exist)
  kRenew,    // we hold it: refresh renewTime
  kWait,     // someone else holds a lease that may still be valid
};

// The observation after reading `seen` at local time `now`: observed_at moves
// only when the record changed, so a holder that keeps renewing keeps the
// lease, and one that stopped is detected by the local clock alone.
LeaseObservation Observe(const LeaseObservation& previous, const LeaderElectionRecord& seen,
                         absl::Time now);

// acquire / renew / wait for `identity`. A held lease expires
// record.lease_duration_seconds (the holder's promise; `lease_duration` when
// the record has none) after it was observed.
LeaseAction DecideLeaseAction(const LeaseObservation& observation, absl::Time now,
                              std::string_view identity, absl::Duration lease_duration);

// The record to write when acquiring or renewing: acquireTime and
// leaseTransitions are kept on renew; a change of holder sets acquireTime and
// increments leaseTransitions.
LeaderElectionRecord BuildNextRecord(const LeaseObservation& observation, absl::Time now,
                                     std::string_view identity, absl::Duration lease_duration);

// The record a holder writes on a clean shutdown (as client-go does): no
// holder and a 1 s lease, transitions kept, so the next candidate takes over
// at its next attempt.
LeaderElectionRecord BuildReleasedRecord(const LeaderElectionRecord& current, absl::Time now);

// Conversions between a Lease object's spec and the record. Missing or
// malformed fields read as their defaults; never throws.
LeaderElectionRecord RecordFromLease(const kube::Json& lease);
// Writes the record into lease["spec"], keeping any other spec fields.
void WriteRecordToLease(const LeaderElectionRecord& record, kube::Json& lease);

// MicroTime, the format of the Lease's times: 2026-11-29T22:00:00.123456Z.
std::string FormatMicroTime(absl::Time t);
// Parses RFC 3339 with any fraction and offset; InfinitePast when malformed.
absl::Time ParseMicroTime(std::string_view s);

// ---------------------------------------------------------------- elector

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  // Unique per running process, e.g. the pod name: a candidate that finds its
  // own identity in the Lease takes it as its own and leads at once.
  std::string identity;
  // Constraints (as client-go): lease_duration > renew_deadline >
  // 1.2 * retry_period > 0.
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  // On cancel, clear the holder so another candidate takes over at once.
  // Only safe because Run releases after on_stopped_leading has returned.
  bool release_on_cancel = true;
};

// Campaigns for and holds one Lease.
//
// Requests go straight to the client's transport with a timeout of the time
// left before renew_deadline, so a hung API server cannot keep a stale leader
// believing it leads; they also bypass the client-side rate limiter, so that
// the controllers' traffic never starves renewals.
//
// Needs RBAC get, create and update on coordination.k8s.io leases.
// Thread-safety: Run is called once, from one thread; IsLeader and
// ObservedHolder may be called from any thread at any time.
class LeaderElector {
 public:
  // `client`, `clock` and `metrics` (nullable) must outlive the elector.
  // With `metrics`, exports leader_election_master_status{name=lease_name}
  // (1 while leading, else 0).
  LeaderElector(kube::Client& client, LeaderElectionConfig config, Clock& clock, Registry* metrics);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Campaigns every retry_period (jittered) until the lease is ours, then
  // calls on_started_leading and renews every retry_period.
  //
  // Callbacks run on the calling thread. on_started_leading must return
  // quickly (start the leader-only work elsewhere): renewals wait for it.
  // on_stopped_leading should stop that work and may block until it has
  // stopped; it is called once, only if on_started_leading was. Either may be
  // empty.
  //
  // Returns:
  //   OK              — `cancel` fired (if leading: on_stopped_leading ran,
  //                     then the lease was released if release_on_cancel);
  //   Aborted         — leadership was lost: renewal failed for
  //                     renew_deadline or another candidate holds the lease.
  //                     Stop leader-only work (usually: exit the process);
  //   InvalidArgument — the config breaks the constraints above.
  //
  // Waits between attempts are cut short by `cancel` with RealClock(); with
  // another clock (tests) they are that clock's Sleep.
  absl::Status Run(Cancellation& cancel, std::function<void()> on_started_leading,
                   std::function<void()> on_stopped_leading);

  bool IsLeader() const;
  // The holder in the last Lease read ("" if none or not read yet).
  std::string ObservedHolder() const;

 private:
  enum class Phase { kCampaigning, kLeading };

  // One read-decide-write round. true: we hold the lease now; false: another
  // candidate holds it. Errors (the attempt says nothing about who leads):
  // Aborted/AlreadyExists when a concurrent write won, DeadlineExceeded when
  // `timeout` ran out, and the API's errors.
  absl::StatusOr<bool> TryAcquireOrRenew(Phase phase, absl::Duration timeout);
  // Writes the released record over the Lease we last wrote.
  absl::Status Release(absl::Duration timeout);
  absl::StatusOr<kube::Json> Call(const std::string& method, const std::string& path,
                                  const kube::Json* body, absl::Time deadline);
  // Sleeps `d`; true when `cancel` fired.
  bool Sleep(absl::Duration d, Cancellation& cancel);
  absl::Duration Jittered(absl::Duration d);
  void SetLeader(bool leader);
  absl::Status ValidateConfig() const;

  kube::Client& client_;
  const LeaderElectionConfig config_;
  Clock& clock_;
  AtomicDouble* master_status_ = nullptr;   // owned by the Registry
  std::mt19937_64 rng_;                     // Run thread only
  std::unique_ptr<kube::Json> last_lease_;  // the Lease as we last wrote it; Run thread only

  mutable absl::Mutex mu_;
  bool is_leader_ ABSL_GUARDED_BY(mu_) = false;
  LeaseObservation observed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_LEADER_ELECTION_H_
