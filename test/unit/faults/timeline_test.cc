#include "test/faults/timeline.h"

#include <gtest/gtest.h>

namespace quorum::faults {
namespace {

const absl::Time t0 = absl::FromUnixSeconds(1000);
absl::Time At(double s) { return t0 + absl::Seconds(s); }

WriteAttempt Ok(double s, int64_t id) { return {.at = At(s), .id = id, .acknowledged = true}; }
WriteAttempt Fail(double s, int64_t id, std::string state = "") {
  return {.at = At(s), .id = id, .acknowledged = false, .sqlstate = std::move(state)};
}

TEST(SummarizeWritesTest, AnOutageRunsFromTheLastSuccessToTheNextOne) {
  const WriteSummary s = SummarizeWrites({Ok(0, 1), Ok(1, 2), Fail(2, 3), Fail(3, 4, "25006"),
                                          Fail(4, 5), Ok(7, 6), Fail(8, 7), Ok(8.5, 8)});
  EXPECT_EQ(s.attempts, 8);
  EXPECT_EQ(s.acknowledged, 4);
  EXPECT_EQ(s.read_only_refusals, 1);
  ASSERT_EQ(s.outages.size(), 2u);
  EXPECT_EQ(s.outages[0].from, At(1));
  EXPECT_EQ(s.outages[0].to, At(7));
  EXPECT_EQ(s.longest, absl::Seconds(6));
  EXPECT_TRUE(s.outages[1].recovered);
}

TEST(SummarizeWritesTest, FailuresAtTheEndAreAnUnrecoveredOutage) {
  const WriteSummary s = SummarizeWrites({Fail(0, 1), Ok(1, 1), Fail(2, 2), Fail(5, 2)});
  ASSERT_EQ(s.outages.size(), 2u);
  EXPECT_EQ(s.outages[0].from, At(0)) << "no success before: from the first failure";
  EXPECT_FALSE(s.outages[1].recovered);
  EXPECT_EQ(s.outages[1].length(), absl::Seconds(4));
}

TEST(LostWritesTest, OnlyAcknowledgedIdsMustBePresent) {
  const std::vector<WriteAttempt> a = {Ok(0, 1), Fail(1, 2), Ok(2, 3), Ok(3, 4)};
  EXPECT_TRUE(LostWrites(a, {1, 3, 4}).empty());
  EXPECT_TRUE(LostWrites(a, {1, 2, 3, 4}).empty()) << "an unacknowledged write may have landed";
  EXPECT_EQ(LostWrites(a, {1, 4}), std::vector<int64_t>({3}));
}

TEST(PrimaryTrackerTest, CountsOverlapsOfTheLabelAndOfTheServiceAddresses) {
  PrimaryTracker t;
  t.OnPod("pg-0", true, At(0));
  t.OnPod("pg-1", false, At(0));
  EXPECT_EQ(t.max_labelled(), 1);
  t.OnPod("pg-1", true, At(10));  // the new one labelled before the old one lost it
  t.OnPod("pg-0", false, At(10.5));
  EXPECT_EQ(t.max_labelled(), 2);
  EXPECT_EQ(t.two_primaries(At(20)), absl::Milliseconds(500));
  t.OnPod("pg-0", true, At(30));
  EXPECT_EQ(t.two_primaries(At(31)), absl::Milliseconds(1500)) << "an open overlap counts";
  t.OnPodGone("pg-0", At(32));
  EXPECT_EQ(t.two_primaries(At(40)), absl::Milliseconds(2500));

  t.OnSlice("s1", 1, At(0));
  t.OnSlice("s2", 1, At(1));
  t.OnSlice("s2", 0, At(3));
  EXPECT_EQ(t.max_addresses(), 2);
  EXPECT_EQ(t.two_addresses(At(10)), absl::Seconds(2));
}

TEST(ReadyDuringOutageTest, ReadyIsALieOnlyPastTheLagAndBeforeTheLead) {
  const std::vector<Outage> outages = {{.from = At(10), .to = At(20)}};
  const std::vector<ReadySample> samples = {{At(5), true},   {At(11), true}, {At(13), true},
                                            {At(15), false}, {At(17), true}, {At(19), true},
                                            {At(21), true}};
  EXPECT_EQ(
      ReadyDuringOutage(samples, outages, {.lag = absl::Seconds(2), .lead = absl::Seconds(0)}), 3);
  // Ready again 1.5 s before writes reach the member through the Service: the
  // routing, not the status, is behind.
  EXPECT_EQ(
      ReadyDuringOutage(samples, outages, {.lag = absl::Seconds(2), .lead = absl::Seconds(2)}), 2);
}

TEST(ReadyDuringOutageTest, AnOutageShorterThanTheSlackCannotBeShown) {
  const std::vector<Outage> outages = {{.from = At(10), .to = At(13)}};
  const std::vector<ReadySample> samples = {{At(11), true}, {At(12), true}};
  EXPECT_EQ(
      ReadyDuringOutage(samples, outages, {.lag = absl::Seconds(2), .lead = absl::Seconds(2)}), 0);
}

TEST(PercentileTest, NearestRank) {
  EXPECT_EQ(Percentile({}, 50), absl::ZeroDuration());
  EXPECT_EQ(Percentile({absl::Seconds(3), absl::Seconds(1), absl::Seconds(2)}, 50),
            absl::Seconds(2));
  EXPECT_EQ(Percentile({absl::Seconds(3), absl::Seconds(1), absl::Seconds(2)}, 100),
            absl::Seconds(3));
}

TEST(EtcdReadBackProblemTest, EveryAcknowledgedPutInOrderWithItsRevision) {
  EXPECT_EQ(EtcdReadBackProblem({}), "");
  EXPECT_EQ(EtcdReadBackProblem({{1, 10, 10}, {2, 11, 11}, {4, 15, 15}}), "");
  EXPECT_EQ(EtcdReadBackProblem({{1, 10, 10}, {2, 11, 0}}), "acknowledged put 2 is missing");
  EXPECT_EQ(EtcdReadBackProblem({{1, 10, 12}}),
            "put 1 was acknowledged at revision 10 but reads back at 12");
  EXPECT_EQ(EtcdReadBackProblem({{1, 10, 10}, {2, 9, 9}}),
            "put 2 has revision 9, not after the previous acknowledged put's 10");
}

}  // namespace
}  // namespace quorum::faults
