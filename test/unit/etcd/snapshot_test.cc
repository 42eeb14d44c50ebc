#include "src/etcd/snapshot.h"

#include <gtest/gtest.h>
#include <openssl/sha.h>

#include "absl/strings/escaping.h"

namespace quorum::etcd {
namespace {

std::string Sha256(std::string_view data) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

// A stream as etcd sends it: the database, then the SHA-256 of the database.
std::string Stream(std::string_view db) { return std::string(db) + Sha256(db); }

TEST(SnapshotDigestTest, AcceptsAWholeStreamWhateverTheChunks) {
  const std::string db(100000, 'x');
  const std::string stream = Stream(db);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{32}, size_t{33}, size_t{4096}, stream.size()}) {
    SnapshotDigest d;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      d.Feed(std::string_view(stream).substr(i, chunk));
    }
    absl::StatusOr<SnapshotDigestResult> r = d.Finish();
    ASSERT_TRUE(r.ok()) << chunk << ": " << r.status();
    EXPECT_EQ(r->size, stream.size());
    EXPECT_EQ(r->sha256, absl::BytesToHexString(Sha256(stream)));
  }
}

TEST(SnapshotDigestTest, RefusesCutCorruptedAndTooShortStreams) {
  const std::string stream = Stream("bbolt database bytes");
  std::string flipped = stream;
  flipped[3] ^= 1;
  const std::string cases[] = {
      stream.substr(0, stream.size() - 1),  // cut inside the trailer
      stream.substr(1),                     // lost its start
      flipped,                              // a byte changed
      stream.substr(stream.size() - 32),    // only a trailer
      "",
  };
  for (const std::string& c : cases) {
    SnapshotDigest d;
    d.Feed(c);
    EXPECT_TRUE(absl::IsDataLoss(d.Finish().status())) << c.size();
  }
}

}  // namespace
}  // namespace quorum::etcd
