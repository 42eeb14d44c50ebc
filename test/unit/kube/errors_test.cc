#include "src/kube/errors.h"

#include <gtest/gtest.h>

namespace quorum::kube {
namespace {

struct Case {
  const char* name;
  long http;
  std::string body;
  std::string retry_after;
  absl::StatusCode code;
  std::string reason;
};

class StatusFromResponseTest : public ::testing::TestWithParam<Case> {};

TEST_P(StatusFromResponseTest, MapsCodeAndReason) {
  const Case& c = GetParam();
  absl::Status s = StatusFromResponse(c.http, c.body, c.retry_after);
  EXPECT_EQ(s.code(), c.code) << s;
  EXPECT_EQ(Reason(s), c.reason) << s;
  EXPECT_EQ(HttpCode(s), c.http);
}

std::string ApiStatus(int code, const std::string& reason, const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","status":"Failure","code":)" + std::to_string(code) +
         R"(,"reason":")" + reason + R"(","message":")" + message + "\"}";
}

INSTANTIATE_TEST_SUITE_P(
    Table, StatusFromResponseTest,
    ::testing::Values(Case{"NotFound", 404,
                           ApiStatus(404, "NotFound", "configmaps \"x\" not found"), "",
                           absl::StatusCode::kNotFound, "NotFound"},
                      Case{"Conflict", 409,
                           ApiStatus(409, "Conflict", "the object has been modified"), "",
                           absl::StatusCode::kAborted, "Conflict"},
                      Case{"AlreadyExists", 409, ApiStatus(409, "AlreadyExists", "exists"), "",
                           absl::StatusCode::kAlreadyExists, "AlreadyExists"},
                      Case{"Gone", 410, ApiStatus(410, "Expired", "too old resource version"), "",
                           absl::StatusCode::kOutOfRange, "Expired"},
                      Case{"Invalid", 422, ApiStatus(422, "Invalid", "bad"), "",
                           absl::StatusCode::kInvalidArgument, "Invalid"},
                      Case{"Unauthorized", 401, ApiStatus(401, "Unauthorized", "Unauthorized"), "",
                           absl::StatusCode::kUnauthenticated, "Unauthorized"},
                      Case{"Forbidden", 403, ApiStatus(403, "Forbidden", "no"), "",
                           absl::StatusCode::kPermissionDenied, "Forbidden"},
                      Case{"TooManyRequests", 429, ApiStatus(429, "TooManyRequests", "slow down"),
                           "3", absl::StatusCode::kResourceExhausted, "TooManyRequests"},
                      Case{"ServiceUnavailable", 503, "", "", absl::StatusCode::kUnavailable,
                           "ServiceUnavailable"},
                      Case{"ServerTimeout", 504, "gateway timeout", "",
                           absl::StatusCode::kDeadlineExceeded, "Timeout"},
                      Case{"InternalError", 500, "<html>oops</html>", "",
                           absl::StatusCode::kInternal, "InternalError"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ErrorsTest, SuccessIsOk) { EXPECT_TRUE(StatusFromResponse(201, "{}").ok()); }

TEST(ErrorsTest, InvalidCarriesFieldCauses) {
  const std::string body = R"({"kind":"Status","code":422,"reason":"Invalid",
    "message":"ConfigMap \"x\" is invalid",
    "details":{"causes":[{"reason":"FieldValueInvalid","message":"Invalid value","field":"metadata.name"},
                         {"reason":"FieldValueRequired","message":"Required value","field":"data"}]}})";
  absl::Status s = StatusFromResponse(422, body);
  ASSERT_TRUE(IsInvalid(s));
  std::vector<StatusCause> causes = Causes(s);
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0], (StatusCause{"FieldValueInvalid", "Invalid value", "metadata.name"}));
  EXPECT_EQ(causes[1].field, "data");
  EXPECT_NE(s.message().find("ConfigMap \"x\" is invalid"), std::string::npos);
}

TEST(ErrorsTest, RetryAfterComesFromHeaderOrBody) {
  absl::Status header = StatusFromResponse(429, "", "7");
  ASSERT_TRUE(RetryAfter(header).has_value());
  EXPECT_EQ(*RetryAfter(header), absl::Seconds(7));
  absl::Status body = StatusFromResponse(
      429,
      R"({"kind":"Status","code":429,"reason":"TooManyRequests","details":{"retryAfterSeconds":2}})");
  EXPECT_EQ(RetryAfter(body), absl::Seconds(2));
  EXPECT_FALSE(RetryAfter(StatusFromResponse(429, "", "soon")).has_value());
  EXPECT_TRUE(IsTooManyRequests(body));
}

TEST(ErrorsTest, MalformedBodiesStillGiveAClearError) {
  for (std::string body :
       {std::string("{\"kind\":\"Status\",\"code\":"), std::string("\x01\x02\xff"),
        std::string(5000, 'x'), std::string("[1,2,3]"), std::string()}) {
    absl::Status s = StatusFromResponse(502, body);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
    EXPECT_LT(s.message().size(), 400u) << "the excerpt must stay short";
    EXPECT_TRUE(Causes(s).empty());
  }
}

TEST(ErrorsTest, StatusesNotFromTheServerHaveNoDetails) {
  absl::Status s = absl::UnavailableError("connection refused");
  EXPECT_EQ(Reason(s), "");
  EXPECT_EQ(HttpCode(s), 0);
  EXPECT_FALSE(RetryAfter(s).has_value());
  EXPECT_TRUE(IsRetryable(s));
  EXPECT_FALSE(IsRetryable(absl::InvalidArgumentError("bad")));
}

}  // namespace
}  // namespace quorum::kube
