#include "src/base/clock.h"

#include <gtest/gtest.h>

#include <thread>

#include "src/base/cancellation.h"

namespace quorum {
namespace {

TEST(FakeClockTest, SleepReturnsOnlyAfterAdvance) {
  FakeClock clock;
  const absl::Time start = clock.Now();
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.Sleep(absl::Seconds(5));
    woke = true;
  });
  while (clock.sleepers() == 0) std::this_thread::yield();
  clock.Advance(absl::Seconds(4));
  EXPECT_FALSE(woke.load());
  clock.Advance(absl::Seconds(1));
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(clock.Now() - start, absl::Seconds(5));
}

TEST(CancellationTest, CancelWakesWaitersAndCallbacks) {
  Cancellation c;
  int woken = 0;
  {
    CancellationRegistration reg(&c, [&] { ++woken; });
    std::thread t([&] { c.Cancel(); });
    EXPECT_TRUE(c.WaitFor(absl::Minutes(1)));
    t.join();
  }
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(c.cancelled());
  CancellationRegistration late(&c, [&] { ++woken; });  // already cancelled: runs at once
  EXPECT_EQ(woken, 2);
}

TEST(CancellationTest, UnregisteredCallbacksDoNotRun) {
  Cancellation c;
  int woken = 0;
  {
    CancellationRegistration reg(&c, [&] { ++woken; });
  }
  c.Cancel();
  EXPECT_EQ(woken, 0);
  EXPECT_FALSE(Cancellation().WaitFor(absl::Milliseconds(1)));
}

}  // namespace
}  // namespace quorum
