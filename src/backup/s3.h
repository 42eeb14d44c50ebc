// S3: one object PUT from a file, one GET into a file, DELETE, and a bucket
// listing's GET, signed with SigV4 (sigv4.h), over libcurl, for snapshot
// uploads, restores and retention. Path-style
// (https://endpoint/bucket/key) or virtual-hosted (https://bucket.endpoint/key)
// addressing. The payload's SHA-256 is signed (x-amz-content-sha256), so the
// store refuses a body that changed on the way.
//
// Credentials are inputs only: never logged, never in an error message.
// Thread-safety: the functions are independent; call them from any thread.
#ifndef QUORUM_SRC_BACKUP_S3_H_
#define QUORUM_SRC_BACKUP_S3_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/backup/sigv4.h"

namespace quorum::backup {

struct S3Location {
  std::string endpoint;  // http(s)://host[:port], no path
  std::string bucket;
  std::string key;  // object key, no leading '/'
  std::string region = "us-east-1";
  bool force_path_style = false;
  std::string ca_file;  // trust for https; empty: the system store
};

// Where a request for `location` goes (pure).
struct S3Target {
  std::string url;   // full URL, path encoded
  std::string host;  // the Host header (host[:port])
  std::string path;  // unencoded path, as signed
};
// InvalidArgument when the endpoint is not http(s)://host[:port] or the bucket
// or key is empty. `bucket_only`: the bucket itself (a listing); key ignored.
absl::StatusOr<S3Target> TargetOf(const S3Location& location, bool bucket_only = false);

// Query parameters, unencoded.
using S3Query = std::vector<std::pair<std::string, std::string>>;

// "s3://bucket/key".
std::string UriOf(const S3Location& location);

// The headers that sign a request (pure): x-amz-date, x-amz-content-sha256
// (`payload_sha256`, also the signed payload hash) and Authorization. Empty
// when the location cannot be addressed.
std::vector<std::string> SignedRequestHeaders(const S3Location& location,
                                              const SigV4Credentials& credentials,
                                              const std::string& method,
                                              const std::string& payload_sha256, absl::Time now,
                                              const S3Query& query = {});

// Uploads `file` (whose SHA-256 is `sha256_hex`) as the object. Errors:
// InvalidArgument (bad location, HTTP 400), PermissionDenied (403: bad
// credentials or no right), NotFound (404: no such bucket), Unavailable
// (connection, TLS, 5xx), Internal (the file cannot be read).
absl::Status PutObject(const S3Location& location, const SigV4Credentials& credentials,
                       const std::string& file, const std::string& sha256_hex, absl::Time now);

// Downloads the object into `file` (replaced). Errors as PutObject, NotFound
// for no such key.
absl::Status GetObject(const S3Location& location, const SigV4Credentials& credentials,
                       const std::string& file, absl::Time now);

// Deletes the object; deleting an absent key succeeds (S3 answers 204).
// Errors as PutObject.
absl::Status DeleteObject(const S3Location& location, const SigV4Credentials& credentials,
                          absl::Time now);

// A signed GET of the bucket (location.key ignored) with `query` (e.g.
// list-type=2, prefix): the response body (XML). Errors as PutObject;
// s3_listing.h reads it.
absl::StatusOr<std::string> GetBucketListing(const S3Location& location,
                                             const SigV4Credentials& credentials,
                                             const S3Query& query, absl::Time now);

}  // namespace quorum::backup

#endif  // QUORUM_SRC_BACKUP_S3_H_
