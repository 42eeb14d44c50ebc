#include "src/controllers/common/wait.h"

#include <gtest/gtest.h>

#include "src/controllers/common/reconcile_log.h"

namespace quorum::controllers {
namespace {

TEST(BackoffDelayTest, DoublesFromOneSecondUpToFiveMinutes) {
  EXPECT_EQ(BackoffDelay(0), absl::Seconds(1));
  EXPECT_EQ(BackoffDelay(1), absl::Seconds(2));
  EXPECT_EQ(BackoffDelay(5), absl::Seconds(32));
  EXPECT_EQ(BackoffDelay(8), absl::Seconds(256));
  EXPECT_EQ(BackoffDelay(9), absl::Minutes(5));
  EXPECT_EQ(BackoffDelay(1000), absl::Minutes(5));
}

TEST(WaitBackoffTest, GrowsWithTheTimeSpentWaitingAndRestartsOnChange) {
  FakeClock clock;
  WaitBackoff b(clock);
  EXPECT_EQ(b.Next("ns/a", "learner not started"), absl::Seconds(1));
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(b.Next("ns/a", "learner not started"), absl::Seconds(1));
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(b.Next("ns/a", "learner not started"), absl::Seconds(2));
  clock.Advance(absl::Seconds(2));
  EXPECT_EQ(b.Next("ns/a", "learner not started"), absl::Seconds(4));
  EXPECT_EQ(b.Next("ns/b", "learner not started"), absl::Seconds(1)) << "per object";
  EXPECT_EQ(b.Next("ns/a", "member kv-2 unhealthy"), absl::Seconds(1)) << "a new wait";
  b.Reset("ns/a");
  EXPECT_EQ(b.Next("ns/a", "member kv-2 unhealthy"), absl::Seconds(1));
  b.Reset("ns/a");
  b.Reset("ns/b");
  EXPECT_EQ(b.size(), 0u) << "objects that progressed are forgotten";
}

TEST(WaitBackoffTest, LooksBroughtByEventsDoNotPushTheNextTimerLookAway) {
  FakeClock clock;
  WaitBackoff b(clock);
  // Five pod events within the first second of a wait.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(b.Next("ns/a", "member kv-1 unhealthy"), absl::Seconds(1));
    clock.Advance(absl::Milliseconds(150));
  }
  clock.Advance(absl::Seconds(3));
  EXPECT_EQ(b.Next("ns/a", "member kv-1 unhealthy"), absl::Milliseconds(3750));
}

TEST(WaitBackoffTest, CappedAtTheGivenMaximum) {
  FakeClock clock;
  WaitBackoff b(clock);
  (void)b.Next("ns/a", "secret missing", absl::Seconds(30));
  clock.Advance(absl::Hours(1));
  EXPECT_EQ(b.Next("ns/a", "secret missing", absl::Seconds(30)), absl::Seconds(30));
  EXPECT_EQ(b.Next("ns/a", "secret missing"), kMaxWait);
}

TEST(RetryGateTest, HoldsAFailedActionUntilItsRetryIsDue) {
  FakeClock clock;
  RetryGate gate(clock);
  EXPECT_FALSE(gate.Wait("ns/a", "AddLearner kv-3").has_value()) << "never failed";
  gate.Failed("ns/a", "AddLearner kv-3", "etcdserver: unhealthy cluster", absl::Seconds(2));
  clock.Advance(absl::Milliseconds(500));  // a pod event wakes the reconcile
  std::optional<RetryGate::Held> held = gate.Wait("ns/a", "AddLearner kv-3");
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->remaining, absl::Milliseconds(1500));
  EXPECT_EQ(held->error, "etcdserver: unhealthy cluster");
  EXPECT_FALSE(gate.Wait("ns/b", "AddLearner kv-3").has_value()) << "per object";
  EXPECT_FALSE(gate.Wait("ns/a", "RemoveMember kv-3").has_value()) << "another action goes";
  clock.Advance(absl::Milliseconds(1500));
  EXPECT_FALSE(gate.Wait("ns/a", "AddLearner kv-3").has_value()) << "the retry is due";
  gate.Reset("ns/a");
  EXPECT_EQ(gate.size(), 0u);
}

TEST(SpreadTest, AddsAtMostATenthAndIsStablePerKey) {
  for (const std::string key : {"a/x", "b/y", "c/z"}) {
    const absl::Duration d = Spread(absl::Seconds(60), key);
    EXPECT_GE(d, absl::Seconds(60));
    EXPECT_LE(d, absl::Seconds(66));
    EXPECT_EQ(d, Spread(absl::Seconds(60), key));
  }
}

TEST(ReconcileLogScopeTest, EveryLineOfAReconcileCarriesItsFields) {
  ASSERT_TRUE(CurrentLogFields().empty());
  {
    ReconcileLogScope scope("etcdcluster", {"db", "kv"});
    const LogFields& f = CurrentLogFields();
    ASSERT_EQ(f.size(), 4u);
    EXPECT_EQ(f[0], (std::pair<std::string, std::string>{"controller", "etcdcluster"}));
    EXPECT_EQ(f[1].second, "db");
    EXPECT_EQ(f[2].second, "kv");
    EXPECT_EQ(f[3], (std::pair<std::string, std::string>{"reconcileID", scope.reconcile_id()}));
    ReconcileLogScope next("etcdcluster", {"db", "kv"});
    EXPECT_NE(next.reconcile_id(), scope.reconcile_id());
  }
  EXPECT_TRUE(CurrentLogFields().empty());
}

}  // namespace
}  // namespace quorum::controllers
