#include "src/backup/s3.h"

#include <gtest/gtest.h>

namespace quorum::backup {
namespace {

TEST(S3Test, TargetOfAddressesPathStyleAndVirtualHosted) {
  struct Case {
    S3Location location;
    std::string url, host, path;
  } cases[] = {
      {{.endpoint = "https://127.0.0.1:8333",
        .bucket = "b",
        .key = "etcd/x y.db",
        .force_path_style = true},
       "https://127.0.0.1:8333/b/etcd/x%20y.db",
       "127.0.0.1:8333",
       "/b/etcd/x y.db"},
      {{.endpoint = "https://s3.eu-west-1.amazonaws.com/", .bucket = "b", .key = "k"},
       "https://b.s3.eu-west-1.amazonaws.com/k",
       "b.s3.eu-west-1.amazonaws.com",
       "/k"},
      {{.endpoint = "http://minio:9000", .bucket = "b", .key = "k", .force_path_style = true},
       "http://minio:9000/b/k",
       "minio:9000",
       "/b/k"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<S3Target> t = TargetOf(c.location);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->url, c.url);
    EXPECT_EQ(t->host, c.host);
    EXPECT_EQ(t->path, c.path);
  }
}

TEST(S3Test, TargetOfRefusesWhatCannotBeAddressed) {
  const S3Location bad[] = {
      {.endpoint = "s3.amazonaws.com", .bucket = "b", .key = "k"},
      {.endpoint = "https://host/path", .bucket = "b", .key = "k"},
      {.endpoint = "https://", .bucket = "b", .key = "k"},
      {.endpoint = "https://host", .bucket = "", .key = "k"},
      {.endpoint = "https://host", .bucket = "b", .key = ""},
  };
  for (const S3Location& l : bad) {
    EXPECT_TRUE(absl::IsInvalidArgument(TargetOf(l).status())) << l.endpoint;
  }
}

TEST(S3Test, UriNamesBucketAndKey) {
  EXPECT_EQ(UriOf({.endpoint = "https://h", .bucket = "b", .key = "p/k.db"}), "s3://b/p/k.db");
}

}  // namespace
}  // namespace quorum::backup

namespace quorum::backup {
namespace {

// The payload hash is both sent and signed: a request signed over an empty
// hash is refused by the store (SignatureDoesNotMatch) whatever it sends.
TEST(S3Test, SignedRequestHeadersSignThePayloadHashTheySend) {
  const S3Location l{
      .endpoint = "https://127.0.0.1:8333", .bucket = "b", .key = "k.db", .force_path_style = true};
  const SigV4Credentials creds{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"};
  const std::string hash = Sha256Hex("snapshot bytes");
  const std::vector<std::string> h =
      SignedRequestHeaders(l, creds, "PUT", hash, absl::FromUnixSeconds(1440938160));
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], "x-amz-date: 20150830T123600Z");
  EXPECT_EQ(h[1], "x-amz-content-sha256: " + hash);
  const SigV4Request signed_request{.method = "PUT",
                                    .path = "/b/k.db",
                                    .headers = {{"host", "127.0.0.1:8333"},
                                                {"x-amz-date", "20150830T123600Z"},
                                                {"x-amz-content-sha256", hash}},
                                    .payload_sha256 = hash};
  EXPECT_EQ(h[2], "Authorization: " + Authorization(signed_request, creds,
                                                    {.region = "us-east-1", .service = "s3"}));
  EXPECT_TRUE(SignedRequestHeaders({.endpoint = "ftp://x", .bucket = "b", .key = "k"}, creds, "GET",
                                   hash, absl::Now())
                  .empty());
}

}  // namespace
}  // namespace quorum::backup
