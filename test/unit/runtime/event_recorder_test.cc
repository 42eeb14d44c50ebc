// The pure part of the event recorder: which events are created, which
// aggregate into an existing Event, which are dropped. Times are explicit.
#include "src/runtime/event_recorder.h"

#include <gtest/gtest.h>

namespace quorum::runtime {
namespace {

using Action = EventCorrelator::Action;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

EventKey Key(std::string message, std::string object = "uid-1", std::string type = "Warning",
             std::string reason = "Failed") {
  return {.object = std::move(object),
          .type = std::move(type),
          .reason = std::move(reason),
          .message = std::move(message)};
}

EventCorrelator::Options Unlimited() {
  return {.aggregation_window = absl::Minutes(10), .qps_per_object = 0, .burst_per_object = 1000};
}

TEST(EventCorrelatorTest, RepeatsWithinTheWindowPatchOneEventWithARisingCount) {
  EventCorrelator c(Unlimited());
  EventCorrelator::Decision d = c.Observe(Key("boom"), kT0);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.count, 1);
  c.Created(Key("boom"), "cm.0000000000000001");
  for (int i = 2; i <= 5; ++i) {
    d = c.Observe(Key("boom"), kT0 + absl::Minutes(i));
    ASSERT_EQ(d.action, Action::kPatch);
    EXPECT_EQ(d.name, "cm.0000000000000001");
    EXPECT_EQ(d.count, i);
    EXPECT_EQ(d.first_timestamp, kT0);
  }
}

TEST(EventCorrelatorTest, AnyDifferenceInObjectTypeReasonOrMessageIsASeparateEvent) {
  EventCorrelator c(Unlimited());
  ASSERT_EQ(c.Observe(Key("boom"), kT0).action, Action::kCreate);
  c.Created(Key("boom"), "e1");
  for (const EventKey& other : {Key("bang"), Key("boom", "uid-2"), Key("boom", "uid-1", "Normal"),
                                Key("boom", "uid-1", "Warning", "Other")}) {
    EXPECT_EQ(c.Observe(other, kT0).action, Action::kCreate) << other.message;
  }
  EXPECT_EQ(c.aggregated_keys(), 5u);
}

TEST(EventCorrelatorTest, TheWindowRunsFromTheLastRepeat) {
  EventCorrelator c(Unlimited());
  ASSERT_EQ(c.Observe(Key("boom"), kT0).action, Action::kCreate);
  c.Created(Key("boom"), "e1");
  // Every 9 minutes for an hour: always the same Event.
  absl::Time t = kT0;
  for (int i = 0; i < 7; ++i) {
    t += absl::Minutes(9);
    ASSERT_EQ(c.Observe(Key("boom"), t).action, Action::kPatch);
  }
  // After a quiet period longer than the window: a new Event, counting anew.
  const EventCorrelator::Decision d = c.Observe(Key("boom"), t + absl::Minutes(11));
  EXPECT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.count, 1);
}

TEST(EventCorrelatorTest, AFailedCreateIsForgottenSoTheNextRepeatCreatesAgain) {
  EventCorrelator c(Unlimited());
  ASSERT_EQ(c.Observe(Key("boom"), kT0).action, Action::kCreate);
  c.Forget(Key("boom"));
  EXPECT_EQ(c.Observe(Key("boom"), kT0 + absl::Seconds(1)).action, Action::kCreate);
}

TEST(EventCorrelatorTest, ABurstPerObjectThenOneEventPerFiveMinutes) {
  EventCorrelator c({.aggregation_window = absl::Minutes(10),
                     .qps_per_object = 1.0 / 300,
                     .burst_per_object = 25});
  for (int i = 0; i < 25; ++i) {
    ASSERT_NE(c.Observe(Key(std::to_string(i)), kT0).action, Action::kDrop) << i;
  }
  EXPECT_EQ(c.Observe(Key("26th"), kT0).action, Action::kDrop);
  EXPECT_EQ(c.Observe(Key("other object", "uid-2"), kT0).action, Action::kCreate)
      << "the limit is per object";
  EXPECT_EQ(c.Observe(Key("later"), kT0 + absl::Seconds(299)).action, Action::kDrop);
  EXPECT_EQ(c.Observe(Key("later"), kT0 + absl::Seconds(300)).action, Action::kCreate);
  EXPECT_EQ(c.Observe(Key("later still"), kT0 + absl::Seconds(301)).action, Action::kDrop);
}

// A retry loop repeating one warning (e.g. AddLearnerFailed while etcd
// settles) must not spend the object's tokens: the events that follow (the
// NOSPACE recovery's NoSpaceAlarmDisarmed) are still written.
TEST(EventCorrelatorTest, RepeatsDoNotSilenceTheObjectsOtherEvents) {
  EventCorrelator c({.aggregation_window = absl::Minutes(10),
                     .qps_per_object = 1.0 / 300,
                     .burst_per_object = 3});
  ASSERT_EQ(c.Observe(Key("boom"), kT0).action, Action::kCreate);
  c.Created(Key("boom"), "e1");
  for (int i = 1; i <= 20; ++i) {
    EXPECT_EQ(c.Observe(Key("boom"), kT0 + absl::Milliseconds(300 * i)).action, Action::kPatch);
  }
  EXPECT_EQ(c.Observe(Key("next"), kT0 + absl::Seconds(7)).action, Action::kCreate);
  EXPECT_EQ(c.Observe(Key("and next"), kT0 + absl::Seconds(7)).action, Action::kCreate);
  EXPECT_EQ(c.Observe(Key("one too many"), kT0 + absl::Seconds(7)).action, Action::kDrop)
      << "distinct events still spend the burst";
}

TEST(EventCorrelatorTest, MemoryStaysBounded) {
  EventCorrelator c({.aggregation_window = absl::Minutes(10),
                     .qps_per_object = 1,
                     .burst_per_object = 1,
                     .max_keys = 16});
  for (int i = 0; i < 1000; ++i) {
    const EventKey k = Key("m", "uid-" + std::to_string(i));
    ASSERT_EQ(c.Observe(k, kT0 + absl::Milliseconds(i)).action, Action::kCreate);
    c.Created(k, "e" + std::to_string(i));
  }
  EXPECT_LE(c.aggregated_keys(), 16u);
  EXPECT_LE(c.rate_limited_objects(), 16u);
  // The most recent keys are the ones kept.
  EXPECT_EQ(c.Observe(Key("m", "uid-999"), kT0 + absl::Seconds(2)).action, Action::kPatch);
}

TEST(EventNameTest, IsTheObjectNameAndSixteenHexDigits) {
  EXPECT_EQ(EventName("my-config", 0xabc), "my-config.0000000000000abc");
  EXPECT_EQ(EventName("x", ~uint64_t{0}), "x.ffffffffffffffff");
  const std::string long_name = EventName(std::string(253, 'a'), 1);
  EXPECT_EQ(long_name.size(), 253u);
  EXPECT_TRUE(long_name.ends_with(".0000000000000001"));
}

TEST(EventTimeTest, IsRfc3339InWholeSeconds) {
  EXPECT_EQ(FormatEventTime(kT0 + absl::Milliseconds(900)), "2027-01-15T08:00:00Z");
}

}  // namespace
}  // namespace quorum::runtime
