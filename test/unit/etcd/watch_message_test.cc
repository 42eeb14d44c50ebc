#include "src/etcd/watch_message.h"

#include <gtest/gtest.h>

#include <string>

#include "src/etcd/errors.h"
#include "src/etcd/keys.h"

namespace quorum::etcd {
namespace {

TEST(KeysTest, PrefixRangeEndIncrementsTheLastByteThatCan) {
  EXPECT_EQ(PrefixRangeEnd("/pg/"), "/pg0");
  EXPECT_EQ(PrefixRangeEnd(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixRangeEnd(std::string("\xff\xff", 2)), std::string(1, '\0'));
  EXPECT_EQ(PrefixRangeEnd(""), std::string(1, '\0'));
}

TEST(WatchMessageTest, CompactedDeniedAndStaleWatchesBecomeTypedStatuses) {
  const absl::Status compacted =
      CancelStatus(WatchMessage{.canceled = true,
                                .cancel_reason = "mvcc: required revision has been compacted",
                                .compact_revision = 50},
                   "watch");
  EXPECT_TRUE(absl::IsOutOfRange(compacted)) << compacted;
  EXPECT_NE(compacted.message().find("50"), absl::string_view::npos) << compacted;

  const absl::Status denied = CancelStatus(
      WatchMessage{.canceled = true, .cancel_reason = "etcdserver: permission denied"}, "watch");
  EXPECT_TRUE(absl::IsPermissionDenied(denied)) << denied;

  const absl::Status stale = CancelStatus(
      WatchMessage{.canceled = true, .cancel_reason = "etcdserver: invalid auth token"}, "watch");
  EXPECT_TRUE(IsStaleToken(stale)) << stale;

  const absl::Status empty_user = CancelStatus(
      WatchMessage{.canceled = true, .cancel_reason = "etcdserver: user name is empty"}, "watch");
  EXPECT_TRUE(IsStaleToken(empty_user)) << empty_user;

  const absl::Status unknown = CancelStatus(WatchMessage{.canceled = true}, "watch");
  EXPECT_TRUE(absl::IsFailedPrecondition(unknown)) << unknown;

  const absl::Status odd =
      CancelStatus(WatchMessage{.canceled = true, .cancel_reason = "something new"}, "watch");
  EXPECT_TRUE(absl::IsFailedPrecondition(odd)) << odd;
}

}  // namespace
}  // namespace quorum::etcd
