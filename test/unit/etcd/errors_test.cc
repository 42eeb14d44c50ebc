#include "src/etcd/errors.h"

#include <gtest/gtest.h>

#include <string>

namespace quorum::etcd {
namespace {

struct Case {
  const char* name;
  long http;
  std::string body;
  absl::StatusCode code;
  std::string reason;
  std::string message_contains;
};

class StatusFromResponseTest : public ::testing::TestWithParam<Case> {};

TEST_P(StatusFromResponseTest, MapsCodeReasonAndMessage) {
  const Case& c = GetParam();
  const absl::Status s = StatusFromResponse(c.http, c.body, "call on http://e:2379");
  EXPECT_EQ(s.code(), c.code) << s;
  EXPECT_EQ(Reason(s), c.reason) << s;
  EXPECT_NE(s.message().find(c.message_contains), absl::string_view::npos) << s;
  EXPECT_EQ(s.message().find("call on http://e:2379: "), 0u) << s;
}

std::string Body(int code, const std::string& message) {
  return R"({"code":)" + std::to_string(code) + R"(,"message":")" + message + "\"}";
}

INSTANTIATE_TEST_SUITE_P(
    Table, StatusFromResponseTest,
    ::testing::Values(
        Case{"Compacted", 400, Body(11, "etcdserver: mvcc: required revision has been compacted"),
             absl::StatusCode::kOutOfRange, "Compacted", "compacted"},
        Case{"NoSpace", 400, Body(8, "etcdserver: mvcc: database space exceeded"),
             absl::StatusCode::kResourceExhausted, "NoSpace", "space exceeded"},
        Case{"MemberNotFound", 404, Body(5, "etcdserver: member not found"),
             absl::StatusCode::kNotFound, "MemberNotFound", "member not found"},
        Case{"LearnerNotReady", 400,
             Body(9, "etcdserver: can only promote a learner member which is in sync with leader"),
             absl::StatusCode::kFailedPrecondition, "LearnerNotReady", "learner not ready: "},
        Case{"InvalidToken", 401, Body(16, "etcdserver: invalid auth token"),
             absl::StatusCode::kUnauthenticated, "InvalidAuthToken", "invalid auth token"},
        Case{"NoTokenWithAuthOn", 400, Body(3, "etcdserver: user name is empty"),
             absl::StatusCode::kUnauthenticated, "UserEmpty", "user name is empty"},
        Case{"AuthOldRevision", 400, Body(3, "etcdserver: revision of auth store is old"),
             absl::StatusCode::kUnauthenticated, "AuthOldRevision", "old"},
        Case{"WrongPassword", 400,
             Body(3, "etcdserver: authentication failed, invalid user ID or password"),
             absl::StatusCode::kUnauthenticated, "AuthFailed", "authentication failed"},
        Case{"PermissionDenied", 403, Body(7, "etcdserver: permission denied"),
             absl::StatusCode::kPermissionDenied, "PermissionDenied", "permission denied"},
        Case{"Learner", 400, Body(9, "etcdserver: rpc not supported for learner"),
             absl::StatusCode::kUnavailable, "NotSupportedForLearner", "learner"},
        Case{"NoLeader", 503, Body(14, "etcdserver: no leader"), absl::StatusCode::kUnavailable, "",
             "no leader"},
        Case{"NotLeader", 400, Body(9, "etcdserver: not leader"),
             absl::StatusCode::kFailedPrecondition, "NotLeader", "not leader"},
        Case{"TooManyLearners", 400, Body(9, "etcdserver: too many learner members in cluster"),
             absl::StatusCode::kFailedPrecondition, "", "too many learner"},
        Case{"BadUrls", 400, Body(3, "etcdserver: given member URLs are invalid"),
             absl::StatusCode::kInvalidArgument, "", "URLs are invalid"},
        Case{"ErrorFieldOf35", 503, R"({"error":"etcdserver: request timed out","code":14})",
             absl::StatusCode::kUnavailable, "", "request timed out"},
        Case{"HtmlFromProxy", 502, "<html>bad gateway</html>", absl::StatusCode::kUnavailable, "",
             "HTTP 502: <html>bad gateway</html>"},
        Case{"EmptyGatewayTimeout", 504, "", absl::StatusCode::kDeadlineExceeded, "", "HTTP 504"},
        Case{"PlainNotFound", 404, "404 page not found\n", absl::StatusCode::kNotFound, "",
             "404 page not found"},
        Case{"CodeOfWrongType", 500, R"({"code":"x","message":5})", absl::StatusCode::kInternal, "",
             "HTTP 500"},
        Case{"ClientCertificateWithCommonName", 400,
             "CommonName of client sending a request against gateway will be ignored and not "
             "used as expected\n",
             absl::StatusCode::kFailedPrecondition, "ClientCertHasCN", "use one without"},
        Case{"ZeroCodeOnError", 400, R"({"code":0,"message":"odd"})",
             absl::StatusCode::kInvalidArgument, "", "odd"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ErrorsTest, SuccessIsOk) { EXPECT_TRUE(StatusFromResponse(200, "{}", "x").ok()); }

TEST(ErrorsTest, StaleTokenErrorsAskForANewToken) {
  EXPECT_TRUE(
      IsStaleToken(StatusFromResponse(401, Body(16, "etcdserver: invalid auth token"), "x")));
  EXPECT_TRUE(
      IsStaleToken(StatusFromResponse(400, Body(3, "etcdserver: user name is empty"), "x")));
  EXPECT_FALSE(IsStaleToken(StatusFromResponse(
      400, Body(3, "etcdserver: authentication failed, invalid user ID or password"), "x")));
  EXPECT_FALSE(IsStaleToken(absl::UnauthenticatedError("invalid auth token")));
}

TEST(ErrorsTest, LearnerNotReadyIsRecognised) {
  EXPECT_TRUE(IsLearnerNotReady(StatusFromResponse(
      400, Body(9, "etcdserver: can only promote a learner member which is in sync with leader"),
      "x")));
  EXPECT_FALSE(IsLearnerNotReady(
      StatusFromResponse(400, Body(9, "etcdserver: can only promote a learner member"), "x")));
}

}  // namespace
}  // namespace quorum::etcd
