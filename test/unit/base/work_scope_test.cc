#include "src/base/work_scope.h"

#include <gtest/gtest.h>

#include <thread>

namespace quorum {
namespace {

TEST(WorkScopeTest, NoScopeLetsEverythingThroughUnchanged) {
  EXPECT_EQ(WorkScope::Current(), nullptr);
  EXPECT_TRUE(CheckCurrentWork("GET /x").ok());
  EXPECT_EQ(CapToCurrentDeadline(absl::Seconds(5)), absl::Seconds(5));
  EXPECT_EQ(CapToCurrentDeadline(absl::ZeroDuration()), absl::ZeroDuration());
}

TEST(WorkScopeTest, CancellationRefusesFurtherWork) {
  Cancellation cancel;
  WorkScope scope(&cancel, absl::InfiniteFuture());
  EXPECT_TRUE(CheckCurrentWork("GET /x").ok());
  cancel.Cancel();
  absl::Status s = CheckCurrentWork("GET /x");
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
  EXPECT_NE(s.message().find("GET /x"), std::string_view::npos) << s;
}

TEST(WorkScopeTest, DeadlineCapsTimeoutsAndThenRefuses) {
  {
    WorkScope scope(nullptr, absl::Now() + absl::Seconds(2));
    EXPECT_LE(CapToCurrentDeadline(absl::Seconds(5)), absl::Seconds(2));
    EXPECT_EQ(CapToCurrentDeadline(absl::Milliseconds(10)), absl::Milliseconds(10));
    EXPECT_GT(CapToCurrentDeadline(absl::ZeroDuration()), absl::ZeroDuration())
        << "no timeout of its own still ends at the deadline";
  }
  WorkScope expired(nullptr, absl::Now() - absl::Seconds(1));
  EXPECT_TRUE(absl::IsDeadlineExceeded(CheckCurrentWork("PUT /y")));
  EXPECT_EQ(CapToCurrentDeadline(absl::Seconds(5)), absl::Milliseconds(1));
}

TEST(WorkScopeTest, ScopesNestAndBelongToTheirThread) {
  Cancellation outer_cancel;
  const absl::Time outer_deadline = absl::Now() + absl::Hours(1);
  WorkScope outer(&outer_cancel, outer_deadline);
  {
    WorkScope inner(nullptr, absl::InfiniteFuture());
    EXPECT_EQ(WorkScope::Current(), &inner);
    EXPECT_EQ(inner.deadline(), outer_deadline) << "the earliest deadline wins";
    EXPECT_TRUE(CheckCurrentWork("x").ok());
    outer_cancel.Cancel();
    EXPECT_TRUE(absl::IsCancelled(CheckCurrentWork("x"))) << "cancelling the outer stops the inner";
  }
  EXPECT_EQ(WorkScope::Current(), &outer);
  EXPECT_TRUE(absl::IsCancelled(CheckCurrentWork("x")));
  std::thread other([] { EXPECT_EQ(WorkScope::Current(), nullptr); });
  other.join();
}

}  // namespace
}  // namespace quorum
