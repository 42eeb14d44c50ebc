#include "src/etcd/errors.h"

#include <gtest/gtest.h>

#include <string>

namespace quorum::etcd {
namespace {

// gRPC's status codes, as etcd sends them.
constexpr int kInvalidArgument = 3, kDeadlineExceeded = 4, kNotFound = 5, kPermissionDenied = 7,
              kResourceExhausted = 8, kFailedPrecondition = 9, kOutOfRange = 11, kUnavailable = 14,
              kUnauthenticated = 16;

struct Case {
  const char* name;
  int grpc_code;
  std::string message;
  absl::StatusCode code;
  std::string reason;
  std::string message_contains;
};

class StatusFromGrpcTest : public ::testing::TestWithParam<Case> {};

TEST_P(StatusFromGrpcTest, MapsCodeReasonAndMessage) {
  const Case& c = GetParam();
  const absl::Status s = StatusFromGrpc(c.grpc_code, c.message, "call on http://e:2379");
  EXPECT_EQ(s.code(), c.code) << s;
  EXPECT_EQ(Reason(s), c.reason) << s;
  EXPECT_NE(s.message().find(c.message_contains), absl::string_view::npos) << s;
  EXPECT_EQ(s.message().find("call on http://e:2379: "), 0u) << s;
}

// The codes and messages of etcd 3.6's rpctypes, and what gRPC itself says
// when the transport fails.
INSTANTIATE_TEST_SUITE_P(
    Table, StatusFromGrpcTest,
    ::testing::Values(
        Case{"Compacted", kOutOfRange, "etcdserver: mvcc: required revision has been compacted",
             absl::StatusCode::kOutOfRange, "Compacted", "compacted"},
        Case{"NoSpace", kResourceExhausted, "etcdserver: mvcc: database space exceeded",
             absl::StatusCode::kResourceExhausted, "NoSpace", "space exceeded"},
        Case{"MemberNotFound", kNotFound, "etcdserver: member not found",
             absl::StatusCode::kNotFound, "MemberNotFound", "member not found"},
        Case{"LearnerNotReady", kFailedPrecondition,
             "etcdserver: can only promote a learner member which is in sync with leader",
             absl::StatusCode::kFailedPrecondition, "LearnerNotReady", "learner not ready: "},
        Case{"InvalidToken", kUnauthenticated, "etcdserver: invalid auth token",
             absl::StatusCode::kUnauthenticated, "InvalidAuthToken", "invalid auth token"},
        Case{"NoTokenWithAuthOn", kInvalidArgument, "etcdserver: user name is empty",
             absl::StatusCode::kUnauthenticated, "UserEmpty", "user name is empty"},
        Case{"AuthOldRevision", kInvalidArgument, "etcdserver: revision of auth store is old",
             absl::StatusCode::kUnauthenticated, "AuthOldRevision", "old"},
        Case{"WrongPassword", kInvalidArgument,
             "etcdserver: authentication failed, invalid user ID or password",
             absl::StatusCode::kUnauthenticated, "AuthFailed", "authentication failed"},
        Case{"AuthNotEnabled", kFailedPrecondition, "etcdserver: authentication is not enabled",
             absl::StatusCode::kFailedPrecondition, "AuthNotEnabled", "not enabled"},
        Case{"PermissionDenied", kPermissionDenied, "etcdserver: permission denied",
             absl::StatusCode::kPermissionDenied, "PermissionDenied", "permission denied"},
        Case{"Learner", kFailedPrecondition, "etcdserver: rpc not supported for learner",
             absl::StatusCode::kUnavailable, "NotSupportedForLearner", "learner"},
        Case{"NoLeader", kUnavailable, "etcdserver: no leader", absl::StatusCode::kUnavailable, "",
             "no leader"},
        Case{"NotLeader", kFailedPrecondition, "etcdserver: not leader",
             absl::StatusCode::kFailedPrecondition, "NotLeader", "not leader"},
        Case{"TooManyLearners", kFailedPrecondition,
             "etcdserver: too many learner members in cluster",
             absl::StatusCode::kFailedPrecondition, "", "too many learner"},
        Case{"BadUrls", kInvalidArgument, "etcdserver: given member URLs are invalid",
             absl::StatusCode::kInvalidArgument, "", "URLs are invalid"},
        Case{"UserNotFound", kFailedPrecondition, "etcdserver: user name not found",
             absl::StatusCode::kFailedPrecondition, "UserNotFound", "not found"},
        Case{"RoleNotFound", kFailedPrecondition, "etcdserver: role name not found",
             absl::StatusCode::kFailedPrecondition, "RoleNotFound", "not found"},
        Case{"RequestTimedOut", kUnavailable, "etcdserver: request timed out",
             absl::StatusCode::kUnavailable, "", "request timed out"},
        Case{"ConnectionRefused", kUnavailable, "failed to connect to all addresses",
             absl::StatusCode::kUnavailable, "", "failed to connect"},
        Case{"Deadline", kDeadlineExceeded, "Deadline Exceeded",
             absl::StatusCode::kDeadlineExceeded, "", "Deadline"},
        Case{"CodeOutOfRange", 42, "odd", absl::StatusCode::kUnknown, "", "odd"},
        Case{"NoMessage", kUnavailable, "", absl::StatusCode::kUnavailable, "", "no message"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ErrorsTest, SuccessIsOk) { EXPECT_TRUE(StatusFromGrpc(0, "", "x").ok()); }

TEST(ErrorsTest, StaleTokenErrorsAskForANewToken) {
  EXPECT_TRUE(
      IsStaleToken(StatusFromGrpc(kUnauthenticated, "etcdserver: invalid auth token", "x")));
  EXPECT_TRUE(
      IsStaleToken(StatusFromGrpc(kInvalidArgument, "etcdserver: user name is empty", "x")));
  EXPECT_TRUE(IsStaleToken(
      StatusFromGrpc(kInvalidArgument, "etcdserver: revision of auth store is old", "x")));
  EXPECT_FALSE(IsStaleToken(StatusFromGrpc(
      kInvalidArgument, "etcdserver: authentication failed, invalid user ID or password", "x")));
  EXPECT_FALSE(IsStaleToken(absl::UnauthenticatedError("invalid auth token")));
}

TEST(ErrorsTest, LearnerNotReadyCompactedAndNoSpaceAreRecognised) {
  EXPECT_TRUE(IsLearnerNotReady(StatusFromGrpc(
      kFailedPrecondition,
      "etcdserver: can only promote a learner member which is in sync with leader", "x")));
  EXPECT_FALSE(IsLearnerNotReady(
      StatusFromGrpc(kFailedPrecondition, "etcdserver: can only promote a learner member", "x")));
  EXPECT_TRUE(IsCompacted(
      StatusFromGrpc(kOutOfRange, "etcdserver: mvcc: required revision has been compacted", "x")));
  EXPECT_TRUE(IsNoSpace(
      StatusFromGrpc(kResourceExhausted, "etcdserver: mvcc: database space exceeded", "x")));
  EXPECT_FALSE(IsCompacted(absl::OutOfRangeError("required revision has been compacted")));
}

}  // namespace
}  // namespace quorum::etcd
