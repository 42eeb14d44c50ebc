#include "src/kube/rate_limiter.h"

#include <gtest/gtest.h>

namespace quorum::kube {
namespace {

TEST(TokenBucketTest, AllowsABurstThenRefillsAtQps) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/10, /*burst=*/3, clock);
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  clock.Advance(absl::Seconds(10));  // refills up to burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
}

TEST(TokenBucketTest, ReserveQueuesCallersBehindEachOther) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/2, /*burst=*/1, clock);
  EXPECT_EQ(bucket.Reserve(), absl::ZeroDuration());
  EXPECT_EQ(bucket.Reserve(), absl::Milliseconds(500));
  EXPECT_EQ(bucket.Reserve(), absl::Seconds(1));
}

TEST(TokenBucketTest, ZeroQpsIsUnlimited) {
  FakeClock clock;
  TokenBucket bucket(0, 1, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(bucket.TryAccept());
  EXPECT_EQ(bucket.Reserve(), absl::ZeroDuration());
}

}  // namespace
}  // namespace quorum::kube
