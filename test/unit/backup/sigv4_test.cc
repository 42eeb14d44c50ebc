#include "src/backup/sigv4.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"

namespace quorum::backup {
namespace {

// AWS's published Signature Version 4 test suite (aws-sig-v4-test-suite):
// credentials AKIDEXAMPLE, region us-east-1, service "service", 20150830T123600Z.
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SigV4Credentials kSuite{"AKIDEXAMPLE", kSecret};
const SigV4Scope kSuiteScope{.region = "us-east-1", .service = "service"};

SigV4Request SuiteRequest(std::string method,
                          std::vector<std::pair<std::string, std::string>> query = {}) {
  return SigV4Request{
      .method = std::move(method),
      .path = "/",
      .query = std::move(query),
      .headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
      .payload_sha256 = Sha256Hex("")};
}

struct Vector {
  const char* name;
  SigV4Request request;
  const char* signature;
};

TEST(SigV4Test, MatchesAwsPublishedTestSuite) {
  const std::string prefix =
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
      "SignedHeaders=host;x-amz-date, Signature=";
  const Vector vectors[] = {
      {"get-vanilla", SuiteRequest("GET"),
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-query-order-key-case",
       SuiteRequest("GET", {{"Param2", "value2"}, {"Param1", "value1"}}),
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"post-vanilla", SuiteRequest("POST"),
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(Authorization(v.request, kSuite, kSuiteScope), prefix + v.signature) << v.name;
  }
}

TEST(SigV4Test, DerivesThePublishedSigningKey) {
  EXPECT_EQ(absl::BytesToHexString(SigningKey(kSecret, "20150830", kSuiteScope)),
            "938127b5336810ddb6a5d6af445fcac9e371f9ed418ed386b022aed82901be75");
}

// AWS's S3 documentation example "GET Object" (examplebucket, Range header).
TEST(SigV4Test, MatchesTheS3DocumentationGetObjectExample) {
  const SigV4Request request{.method = "GET",
                             .path = "/test.txt",
                             .headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                                         {"Range", "bytes=0-9"},
                                         {"x-amz-content-sha256", Sha256Hex("")},
                                         {"x-amz-date", "20130524T000000Z"}},
                             .payload_sha256 = Sha256Hex("")};
  EXPECT_EQ(
      Authorization(request, {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
                    {.region = "us-east-1", .service = "s3"}),
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
      "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
      "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, CanonicalRequestEncodesThePathOnceForS3AndTrimsHeaderValues) {
  const SigV4Request request{
      .method = "PUT",
      .path = "/bucket/etcd backups/a+b",
      .headers = {{"Host", "s3.local:9000"}, {"X-Amz-Date", "  20260101T000000Z  "}},
      .payload_sha256 = "UNSIGNED-PAYLOAD"};
  std::string names;
  EXPECT_EQ(CanonicalRequest(request, /*path_encoded_once=*/true, &names),
            "PUT\n/bucket/etcd%20backups/a%2Bb\n\nhost:s3.local:9000\n"
            "x-amz-date:20260101T000000Z\n\nhost;x-amz-date\nUNSIGNED-PAYLOAD");
  EXPECT_EQ(names, "host;x-amz-date");
}

TEST(SigV4Test, UriEncodeKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(UriEncode("a-Z_0.~/ =", true), "a-Z_0.~/%20%3D");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xe1\x88\xb4", true), "%E1%88%B4");
}

TEST(SigV4Test, CredentialsLoseTheNewlineAFileLeftInTheSecret) {
  const SigV4Credentials c = CleanCredentials("AKIDEXAMPLE\n", " wJalrXUtnFEMI/K7MDENG\r\n");
  EXPECT_EQ(c.access_key_id, "AKIDEXAMPLE");
  EXPECT_EQ(c.secret_access_key, "wJalrXUtnFEMI/K7MDENG");
}

}  // namespace
}  // namespace quorum::backup
