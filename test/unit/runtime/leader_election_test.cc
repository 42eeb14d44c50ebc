// The pure decision of leader election: given what a candidate observed and
// when (by its own clock), acquire, renew or wait. Times are explicit values.
#include "src/runtime/leader_election.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/base/cancellation.h"

namespace quorum::runtime {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);
const absl::Duration kLease = absl::Seconds(15);

LeaderElectionRecord HeldBy(std::string holder, absl::Time renew, int64_t transitions = 0) {
  return {.holder_identity = std::move(holder),
          .lease_duration_seconds = 15,
          .acquire_time = renew,
          .renew_time = renew,
          .lease_transitions = transitions};
}

LeaseObservation Seen(LeaderElectionRecord r, absl::Time at) {
  return {.exists = true, .record = std::move(r), .observed_at = at};
}

TEST(LeaderElectionDecisionTest, AbsentLeaseIsAcquired) {
  EXPECT_EQ(DecideLeaseAction({}, kT0, "a", kLease), LeaseAction::kAcquire);
}

TEST(LeaderElectionDecisionTest, OwnLeaseIsRenewedEvenIfLongUnchanged) {
  EXPECT_EQ(DecideLeaseAction(Seen(HeldBy("a", kT0), kT0), kT0 + absl::Hours(1), "a", kLease),
            LeaseAction::kRenew);
}

TEST(LeaderElectionDecisionTest, ReleasedLeaseIsAcquiredAtOnce) {
  const LeaderElectionRecord released = BuildReleasedRecord(HeldBy("b", kT0, 3), kT0);
  EXPECT_EQ(DecideLeaseAction(Seen(released, kT0), kT0, "a", kLease), LeaseAction::kAcquire);
}

TEST(LeaderElectionDecisionTest, OtherHolderIsWaitedOutForALeaseDurationByTheLocalClock) {
  const LeaseObservation obs = Seen(HeldBy("b", kT0), kT0);
  struct Case {
    absl::Duration since_observed;
    LeaseAction want;
  };
  for (const Case& c : std::vector<Case>{{absl::ZeroDuration(), LeaseAction::kWait},
                                         {absl::Seconds(14.999), LeaseAction::kWait},
                                         {absl::Seconds(15), LeaseAction::kAcquire},
                                         {absl::Minutes(5), LeaseAction::kAcquire}}) {
    EXPECT_EQ(DecideLeaseAction(obs, kT0 + c.since_observed, "a", kLease), c.want)
        << absl::FormatDuration(c.since_observed);
  }
}

TEST(LeaderElectionDecisionTest, RemoteTimestampsAreNeverComparedWithTheLocalClock) {
  // The holder's clock is an hour behind: its renewTime looks ancient, but we
  // only just observed the record, so it is valid.
  const LeaseObservation obs = Seen(HeldBy("b", kT0 - absl::Hours(1)), kT0);
  EXPECT_EQ(DecideLeaseAction(obs, kT0 + absl::Seconds(1), "a", kLease), LeaseAction::kWait);
  // An hour ahead: still expires a lease duration after we saw it.
  const LeaseObservation ahead = Seen(HeldBy("b", kT0 + absl::Hours(1)), kT0);
  EXPECT_EQ(DecideLeaseAction(ahead, kT0 + kLease, "a", kLease), LeaseAction::kAcquire);
}

TEST(LeaderElectionDecisionTest, TheHoldersPromisedDurationWins) {
  LeaderElectionRecord r = HeldBy("b", kT0);
  r.lease_duration_seconds = 60;
  EXPECT_EQ(DecideLeaseAction(Seen(r, kT0), kT0 + absl::Seconds(30), "a", kLease),
            LeaseAction::kWait);
  EXPECT_EQ(DecideLeaseAction(Seen(r, kT0), kT0 + absl::Seconds(60), "a", kLease),
            LeaseAction::kAcquire);
  r.lease_duration_seconds = 0;  // missing: our own configuration
  EXPECT_EQ(DecideLeaseAction(Seen(r, kT0), kT0 + kLease, "a", kLease), LeaseAction::kAcquire);
}

TEST(LeaderElectionDecisionTest, UnknownObservationTimeNeverExpires) {
  LeaseObservation obs = Seen(HeldBy("b", kT0), absl::InfinitePast());
  EXPECT_EQ(DecideLeaseAction(obs, kT0 + absl::Hours(1), "a", kLease), LeaseAction::kWait);
}

TEST(LeaderElectionObserveTest, ObservationTimeMovesOnlyWhenTheRecordChanges) {
  LeaseObservation obs = Observe({}, HeldBy("b", kT0), kT0);
  EXPECT_EQ(obs.observed_at, kT0);
  obs = Observe(obs, HeldBy("b", kT0), kT0 + absl::Seconds(10));
  EXPECT_EQ(obs.observed_at, kT0) << "an unchanged record keeps its first observation time";
  obs = Observe(obs, HeldBy("b", kT0 + absl::Seconds(2)), kT0 + absl::Seconds(12));
  EXPECT_EQ(obs.observed_at, kT0 + absl::Seconds(12));
}

TEST(LeaderElectionObserveTest, AStrangerThatKeepsRenewingIsNeverTakenOver) {
  LeaseObservation obs;
  for (int step = 0; step < 100; ++step) {
    const absl::Time now = kT0 + absl::Seconds(2 * step);
    // The stranger renews every 2 s; its clock is 10 minutes off.
    obs = Observe(obs, HeldBy("stranger", now - absl::Minutes(10)), now);
    ASSERT_EQ(DecideLeaseAction(obs, now + absl::Seconds(1.9), "a", kLease), LeaseAction::kWait)
        << "step " << step;
  }
}

TEST(LeaderElectionObserveTest, AStrangerThatStopsRenewingIsTakenOverAfterALeaseDuration) {
  LeaseObservation obs;
  absl::Time now = kT0;
  for (; now < kT0 + absl::Seconds(10); now += absl::Seconds(2)) {
    obs = Observe(obs, HeldBy("stranger", now), now);
  }
  const absl::Time last_change = now - absl::Seconds(2);
  const LeaderElectionRecord frozen = obs.record;
  for (; now < last_change + kLease; now += absl::Seconds(1)) {
    obs = Observe(obs, frozen, now);
    ASSERT_EQ(DecideLeaseAction(obs, now, "a", kLease), LeaseAction::kWait);
  }
  obs = Observe(obs, frozen, now);
  EXPECT_EQ(DecideLeaseAction(obs, now, "a", kLease), LeaseAction::kAcquire);
}

TEST(LeaderElectionRecordTest, CreatingStartsAtZeroTransitions) {
  const LeaderElectionRecord r = BuildNextRecord({}, kT0, "a", kLease);
  EXPECT_EQ(r.holder_identity, "a");
  EXPECT_EQ(r.lease_duration_seconds, 15);
  EXPECT_EQ(r.acquire_time, kT0);
  EXPECT_EQ(r.renew_time, kT0);
  EXPECT_EQ(r.lease_transitions, 0);
}

TEST(LeaderElectionRecordTest, RenewingKeepsAcquireTimeAndTransitions) {
  const LeaderElectionRecord r =
      BuildNextRecord(Seen(HeldBy("a", kT0, 4), kT0), kT0 + absl::Seconds(2), "a", kLease);
  EXPECT_EQ(r.acquire_time, kT0);
  EXPECT_EQ(r.renew_time, kT0 + absl::Seconds(2));
  EXPECT_EQ(r.lease_transitions, 4);
}

TEST(LeaderElectionRecordTest, TakingOverIncrementsTransitions) {
  const absl::Time later = kT0 + absl::Seconds(20);
  const LeaderElectionRecord r =
      BuildNextRecord(Seen(HeldBy("b", kT0, 4), kT0), later, "a", kLease);
  EXPECT_EQ(r.holder_identity, "a");
  EXPECT_EQ(r.acquire_time, later);
  EXPECT_EQ(r.lease_transitions, 5);
  const LeaderElectionRecord after_release =
      BuildNextRecord(Seen(BuildReleasedRecord(HeldBy("b", kT0, 4), kT0), kT0), later, "a", kLease);
  EXPECT_EQ(after_release.lease_transitions, 5);
}

TEST(LeaderElectionRecordTest, ReleaseClearsTheHolderAndShortensTheLease) {
  const LeaderElectionRecord r = BuildReleasedRecord(HeldBy("a", kT0, 7), kT0 + absl::Seconds(3));
  EXPECT_EQ(r.holder_identity, "");
  EXPECT_EQ(r.lease_duration_seconds, 1);
  EXPECT_EQ(r.lease_transitions, 7);
  EXPECT_EQ(r.renew_time, kT0 + absl::Seconds(3));
}

TEST(LeaderElectionRecordTest, LeaseDurationRoundsUpToWholeSeconds) {
  EXPECT_EQ(BuildNextRecord({}, kT0, "a", absl::Milliseconds(1500)).lease_duration_seconds, 2);
  EXPECT_EQ(BuildNextRecord({}, kT0, "a", absl::Milliseconds(10)).lease_duration_seconds, 1);
}

TEST(LeaderElectionLeaseTest, RecordRoundTripsThroughALeaseKeepingOtherFields) {
  kube::Json lease = {{"metadata", {{"name", "l"}}}, {"spec", {{"preferredHolder", "x"}}}};
  const LeaderElectionRecord r = HeldBy("a", kT0 + absl::Microseconds(123456), 2);
  WriteRecordToLease(r, lease);
  EXPECT_EQ(lease["spec"]["renewTime"], "2027-01-15T08:00:00.123456Z");
  EXPECT_EQ(lease["spec"]["preferredHolder"], "x");
  EXPECT_EQ(RecordFromLease(lease), r);
}

TEST(LeaderElectionLeaseTest, MalformedLeasesReadAsDefaultsWithoutThrowing) {
  for (const kube::Json& lease : {kube::Json(), kube::Json::array(), kube::Json{{"spec", 5}},
                                  kube::Json{{"spec",
                                              {{"holderIdentity", 3},
                                               {"leaseDurationSeconds", "15"},
                                               {"renewTime", "yesterday"},
                                               {"leaseTransitions", nullptr}}}}}) {
    const LeaderElectionRecord r = RecordFromLease(lease);
    EXPECT_EQ(r, LeaderElectionRecord{}) << lease.dump();
  }
}

TEST(LeaderElectionLeaseTest, MicroTimeFormatsAndParses) {
  const absl::Time t = absl::FromUnixMicros(1'796'162'400'123'456);
  EXPECT_EQ(FormatMicroTime(t), "2026-12-01T22:00:00.123456Z");
  EXPECT_EQ(ParseMicroTime("2026-12-01T22:00:00.123456Z"), t);
  EXPECT_EQ(ParseMicroTime("2026-12-01T23:00:00.123456+01:00"), t);
  EXPECT_EQ(ParseMicroTime("2026-12-01T22:00:00Z"), t - absl::Microseconds(123456));
  EXPECT_EQ(ParseMicroTime(""), absl::InfinitePast());
  EXPECT_EQ(ParseMicroTime("not a time"), absl::InfinitePast());
}

TEST(LeaderElectorTest, RunRejectsInconsistentDurationsBeforeAnyRequest) {
  auto client = kube::Client::Create({.server = "http://127.0.0.1:1"});
  ASSERT_TRUE(client.ok()) << client.status();
  FakeClock clock;
  Cancellation cancel;
  for (const LeaderElectionConfig& config : std::vector<LeaderElectionConfig>{
           {.lease_namespace = "ns",
         .lease_name = "l",
         .identity = "a",
         .lease_duration = absl::Seconds(10),
         .renew_deadline = absl::Seconds(10)},
           {.lease_namespace = "ns",
           .lease_name = "l",
           .identity = "a",
           .renew_deadline = absl::Seconds(2),
           .retry_period = absl::Seconds(2)},
           {.lease_namespace = "ns", .lease_name = "l", .identity = ""}}) {
    LeaderElector elector(**client, config, clock, nullptr);
    EXPECT_TRUE(absl::IsInvalidArgument(elector.Run(cancel, nullptr, nullptr)));
    EXPECT_FALSE(elector.IsLeader());
  }
}

}  // namespace
}  // namespace quorum::runtime
