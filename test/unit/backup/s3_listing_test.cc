// Reading an S3 ListObjectsV2 answer (pure): keys (XML entities undone),
// sizes, the continuation token of a truncated page; a non-listing refused.
#include "src/backup/s3_listing.h"

#include <gtest/gtest.h>

namespace quorum::backup {
namespace {

TEST(S3ListingTest, ReadsKeysSizesAndTheNextPage) {
  const char* xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
<Prefix>db/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>
<Contents><Key>db/a-1.db</Key><LastModified>2026-12-02T00:00:00.000Z</LastModified>
<ETag>&quot;x&quot;</ETag><Size>2048</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>db/b&amp;c.db</Key><Size>7</Size></Contents>
<NextContinuationToken>tok/1==</NextContinuationToken></ListBucketResult>)";
  absl::StatusOr<S3ListingPage> page = ParseListing(xml);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "db/a-1.db");
  EXPECT_EQ(page->objects[0].size, 2048);
  EXPECT_EQ(page->objects[1].key, "db/b&c.db");
  EXPECT_EQ(page->next_token, "tok/1==");
}

TEST(S3ListingTest, TheLastPageHasNoToken) {
  absl::StatusOr<S3ListingPage> page =
      ParseListing("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->objects.empty());
  EXPECT_EQ(page->next_token, "");
  EXPECT_TRUE(absl::IsInvalidArgument(ParseListing("<Error><Code>x</Code></Error>").status()));
}

}  // namespace
}  // namespace quorum::backup
