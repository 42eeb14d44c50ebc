// Listing the objects under a prefix (S3 ListObjectsV2), for retention checks
// and tests. ParseListing is pure (the XML answer, read by tag scanning: S3's
// listing has no nesting that needs a parser); ListObjects does the I/O and
// follows continuation tokens.
//
// Thread-safety: independent functions.
#ifndef QUORUM_SRC_BACKUP_S3_LISTING_H_
#define QUORUM_SRC_BACKUP_S3_LISTING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "src/backup/s3.h"

namespace quorum::backup {

struct S3Object {
  std::string key;
  int64_t size = 0;
};

struct S3ListingPage {
  std::vector<S3Object> objects;
  std::string next_token;  // empty: the last page
};

// InvalidArgument when `xml` is not a ListBucketResult.
absl::StatusOr<S3ListingPage> ParseListing(absl::string_view xml);

// Every object whose key starts with `location.key` (the prefix; "" lists the
// bucket), in the store's (lexical) order. Errors as GetBucketListing.
absl::StatusOr<std::vector<S3Object>> ListObjects(const S3Location& location,
                                                  const SigV4Credentials& credentials,
                                                  absl::Time now);

}  // namespace quorum::backup

#endif  // QUORUM_SRC_BACKUP_S3_LISTING_H_
