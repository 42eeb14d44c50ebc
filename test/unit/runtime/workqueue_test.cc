#include "src/runtime/workqueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"

namespace quorum::runtime {
namespace {

WorkQueue::Options FakeOptions(FakeClock& clock) {
  WorkQueue::Options options;
  options.name = "test";
  options.clock = &clock;
  return options;
}

// Advances the fake clock and lets the queue see it.
void Advance(FakeClock& clock, WorkQueue& q, absl::Duration d) {
  clock.Advance(d);
  q.Poke();
}

TEST(WorkQueueTest, RepeatedAddsOfAQueuedKeyQueueItOnce) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("a");
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, IdleMeansNothingReadyAndNothingBeingProcessed) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  EXPECT_TRUE(q.Idle());
  q.Add("a");
  EXPECT_FALSE(q.Idle()) << "a ready key";
  ASSERT_EQ(q.Get(), "a");
  EXPECT_FALSE(q.Idle()) << "a key being processed";
  q.Done("a");
  EXPECT_TRUE(q.Idle());
  q.AddAfter("b", absl::Seconds(5));
  EXPECT_TRUE(q.Idle()) << "a delayed key waits; the queue is idle until it is due";
  Advance(clock, q, absl::Seconds(5));
  EXPECT_FALSE(q.Idle());
}

TEST(WorkQueueTest, AKeyAddedWhileProcessingIsRedeliveredOnceAfterDone) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.Add("a");
  EXPECT_EQ(q.Len(), 0u) << "a key being processed must not be handed out again";
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, DoneOfAKeyNotAddedMeanwhileForgetsIt) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  q.Done("a");        // a second Done is ignored
  q.Done("unknown");  // and so is a key that was never handed out
  EXPECT_EQ(q.Len(), 0u);
  q.Add("a");
  EXPECT_EQ(q.Len(), 1u);
}

TEST(WorkQueueTest, NoKeyIsProcessedByTwoWorkersAtOnceAndEveryAddIsSeen) {
  constexpr int kKeys = 50, kProducers = 3, kAddsPerProducer = 20000, kWorkers = 4;
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  // A producer bumps a key's version before adding it; a worker reads the
  // version after Get(). Once quiet, every key must have been processed at a
  // version at least as new as its last add.
  std::vector<std::atomic<int>> version(kKeys), processed(kKeys), in_flight(kKeys);
  std::atomic<int> overlaps{0}, deliveries{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (std::optional<std::string> key = q.Get()) {
        const int k = std::stoi(*key);
        if (in_flight[k].fetch_add(1) != 0) ++overlaps;
        const int v = version[k].load();
        std::this_thread::yield();
        int seen = processed[k].load();
        while (seen < v && !processed[k].compare_exchange_weak(seen, v)) {
        }
        in_flight[k].fetch_sub(1);
        ++deliveries;
        q.Done(*key);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAddsPerProducer; ++i) {
        const int k = (i * 7 + p) % kKeys;
        version[k].fetch_add(1);
        q.Add(std::to_string(k));
      }
    });
  }
  for (auto& t : producers) t.join();
  auto all_seen = [&] {
    for (int k = 0; k < kKeys; ++k) {
      if (processed[k].load() < version[k].load()) return false;
    }
    return true;
  };
  const absl::Time give_up = absl::Now() + absl::Seconds(60);  // a hang guard, not a wait
  while (!all_seen() && absl::Now() < give_up) std::this_thread::yield();
  q.ShutDown();
  for (auto& t : workers) t.join();
  EXPECT_TRUE(all_seen());
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_LE(deliveries.load(), kProducers * kAddsPerProducer);
}

TEST(WorkQueueTest, AddAfterMakesTheKeyReadyOnlyOnceTheDelayHasPassed) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.AddAfter("a", absl::Seconds(1));
  q.Poke();
  EXPECT_EQ(q.Len(), 0u);
  Advance(clock, q, absl::Milliseconds(999));
  EXPECT_EQ(q.Len(), 0u);
  Advance(clock, q, absl::Milliseconds(1));
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(q.Get(), "a");
}

TEST(WorkQueueTest, AddAfterWithoutAPositiveDelayAddsAtOnce) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.AddAfter("a", absl::ZeroDuration());
  q.AddAfter("b", absl::Seconds(-1));
  EXPECT_EQ(q.Len(), 2u);
}

TEST(WorkQueueTest, ABlockedGetWakesWhenPokedAfterTheClockReachesTheDelay) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  // An hour of fake time: a Get() that missed the Poke() would hang, not pass.
  q.AddAfter("a", absl::Hours(1));
  std::optional<std::string> got;
  std::thread worker([&] { got = q.Get(); });
  Advance(clock, q, absl::Hours(1));
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST(WorkQueueTest, ABlockedGetWaitsLessWhenAnEarlierDelayArrives) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.AddAfter("late", absl::Hours(2));
  std::optional<std::string> got;
  std::thread worker([&] { got = q.Get(); });
  q.AddAfter("early", absl::Hours(1));
  Advance(clock, q, absl::Hours(1));
  worker.join();
  EXPECT_EQ(got, "early");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, TheEarlierOfTwoDelaysForAKeyWins) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.AddAfter("shortened", absl::Seconds(10));
  q.AddAfter("shortened", absl::Seconds(1));
  q.AddAfter("kept", absl::Seconds(1));
  q.AddAfter("kept", absl::Seconds(10));
  Advance(clock, q, absl::Seconds(1));
  EXPECT_EQ(q.Len(), 2u);
  for (int i = 0; i < 2; ++i) q.Done(*q.Get());
  Advance(clock, q, absl::Seconds(9));
  EXPECT_EQ(q.Len(), 0u) << "the superseded later delay must not add the key again";
}

TEST(WorkQueueTest, DelayedKeysBecomeReadyInDueOrder) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.AddAfter("c", absl::Seconds(3));
  q.AddAfter("a", absl::Seconds(1));
  q.AddAfter("b", absl::Seconds(2));
  q.AddAfter("b2", absl::Seconds(2));
  Advance(clock, q, absl::Seconds(3));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), "b2");
  EXPECT_EQ(q.Get(), "c");
}

TEST(WorkQueueTest, RateLimitedBackoffDoublesWithEachRequeueAndForgetResetsIt) {
  FakeClock clock;
  WorkQueue::Options options = FakeOptions(clock);
  options.qps = 0;  // unlimited bucket: only the per-key backoff applies
  WorkQueue q(options);
  auto expect_ready_after = [&](absl::Duration d) {
    q.AddRateLimited("a");
    Advance(clock, q, d - absl::Microseconds(1));
    EXPECT_EQ(q.Len(), 0u) << "before " << d;
    Advance(clock, q, absl::Microseconds(1));
    ASSERT_EQ(q.Len(), 1u) << "after " << d;
    q.Done(*q.Get());
  };
  for (int ms : {5, 10, 20, 40, 80}) expect_ready_after(absl::Milliseconds(ms));
  EXPECT_EQ(q.NumRequeues("a"), 5);
  EXPECT_EQ(q.NumRequeues("other"), 0);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
  expect_ready_after(absl::Milliseconds(5));
}

TEST(WorkQueueTest, RateLimitedBackoffIsCappedAtMaxDelay) {
  FakeClock clock;
  WorkQueue::Options options = FakeOptions(clock);
  options.qps = 0;
  options.base_delay = absl::Seconds(1);
  options.max_delay = absl::Seconds(4);
  WorkQueue q(options);
  for (int i = 0; i < 100; ++i) {  // far past the point where 2^i overflows
    q.AddRateLimited("a");
    Advance(clock, q, absl::Seconds(4));
    ASSERT_EQ(q.Len(), 1u) << "requeue " << i;
    q.Done(*q.Get());
  }
  EXPECT_EQ(q.NumRequeues("a"), 100);
}

TEST(WorkQueueTest, TheOverallBucketLimitsABurstOfRetries) {
  FakeClock clock;
  WorkQueue::Options options = FakeOptions(clock);
  options.qps = 1;
  options.burst = 2;
  WorkQueue q(options);
  q.AddRateLimited("a");
  q.AddRateLimited("b");
  q.AddRateLimited("c");  // no token left: waits a second for the next one
  Advance(clock, q, absl::Milliseconds(5));
  EXPECT_EQ(q.Len(), 2u);
  Advance(clock, q, absl::Milliseconds(994));
  EXPECT_EQ(q.Len(), 2u);
  Advance(clock, q, absl::Milliseconds(1));
  EXPECT_EQ(q.Len(), 3u);
}

TEST(WorkQueueTest, ShutDownUnblocksGetAndDropsPendingKeys) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  std::optional<std::string> got = "not called";
  std::thread worker([&] { got = q.Get(); });
  q.AddAfter("delayed", absl::Hours(1));
  q.ShutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
  EXPECT_TRUE(q.ShuttingDown());
  q.Add("late");
  Advance(clock, q, absl::Hours(1));
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(WorkQueueTest, DoneAfterShutDownDoesNotRequeue) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.ShutDown();
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, ShutDownWithDrainWaitsForItemsInFlightThenGetReturnsNullopt) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("in-flight");
  q.Add("pending");
  ASSERT_EQ(q.Get(), "in-flight");
  std::atomic<bool> drained{false};
  std::thread drainer([&] {
    q.ShutDownWithDrain();
    drained = true;
  });
  while (!q.ShuttingDown()) std::this_thread::yield();
  EXPECT_EQ(q.Get(), std::nullopt) << "no new work is handed out while draining";
  q.Add("refused");
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_FALSE(drained.load()) << "a key is still being processed";
  q.Done("in-flight");
  drainer.join();
  EXPECT_TRUE(drained.load());
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(WorkQueueTest, ShutDownWithDrainReturnsAtOnceWhenNothingIsInFlight) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("a");
  q.ShutDownWithDrain();
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(WorkQueueTest, ShutDownReleasesAShutDownWithDrain) {
  FakeClock clock;
  WorkQueue q(FakeOptions(clock));
  q.Add("stuck");
  ASSERT_EQ(q.Get(), "stuck");
  std::thread drainer([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.ShutDown();
  drainer.join();  // returns although "stuck" is never Done
}

TEST(WorkQueueTest, MetricsCountAddsRetriesDepthAndDurations) {
  FakeClock clock;
  Registry registry;
  WorkQueue::Options options = FakeOptions(clock);
  options.metrics = &registry;
  options.qps = 0;
  WorkQueue q(options);
  const LabelValues labels{"test"};
  auto& depth = registry.Gauge("workqueue_depth", "", {"name"});
  auto& adds = registry.Counter("workqueue_adds_total", "", {"name"});
  auto& retries = registry.Counter("workqueue_retries_total", "", {"name"});
  auto& queued = registry.Histogram("workqueue_queue_duration_seconds", "", {"name"});
  auto& worked = registry.Histogram("workqueue_work_duration_seconds", "", {"name"});

  q.Add("a");
  q.Add("a");  // deduplicated: not an add
  q.Add("b");
  EXPECT_EQ(adds.Value(labels), 2);
  EXPECT_EQ(depth.Value(labels), 2);

  clock.Advance(absl::Seconds(2));
  ASSERT_EQ(q.Get(), "a");
  EXPECT_EQ(depth.Value(labels), 1);
  EXPECT_EQ(queued.Count(labels), 1u);
  clock.Advance(absl::Seconds(3));
  q.Done("a");
  EXPECT_EQ(worked.Count(labels), 1u);

  q.AddRateLimited("c");
  EXPECT_EQ(retries.Value(labels), 1);
  EXPECT_EQ(adds.Value(labels), 2) << "a delayed key counts as added once it is due";
  Advance(clock, q, absl::Milliseconds(5));
  EXPECT_EQ(adds.Value(labels), 3);
  EXPECT_EQ(depth.Value(labels), 2);

  const std::string text = registry.Render();
  EXPECT_NE(text.find("workqueue_queue_duration_seconds_sum{name=\"test\"} 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("workqueue_work_duration_seconds_sum{name=\"test\"} 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("workqueue_retries_total{name=\"test\"} 1\n"), std::string::npos) << text;
}

TEST(WorkQueueTest, WithTheRealClockABlockedGetWakesByItselfWhenTheDelayIsDue) {
  WorkQueue q(WorkQueue::Options{.name = "real"});
  const absl::Time start = absl::Now();
  q.AddAfter("a", absl::Milliseconds(20));
  EXPECT_EQ(q.Get(), "a");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(20));
}

}  // namespace
}  // namespace quorum::runtime
