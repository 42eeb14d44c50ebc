// Snapshot: etcd's Maintenance.Snapshot gRPC stream. Each message carries a
// blob and the bytes still to come (remaining_bytes); the blobs, concatenated,
// are the member's bbolt database followed by a 32-byte SHA-256 of everything
// before it (etcd appends the digest so that a reader can tell a whole
// snapshot from a cut one). SnapshotDigest checks that trailer while the bytes
// go by.
//
// SnapshotDigest is pure (table-tested); StreamSnapshot does the I/O.
#ifndef QUORUM_SRC_ETCD_SNAPSHOT_H_
#define QUORUM_SRC_ETCD_SNAPSHOT_H_

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/base/cancellation.h"
#include "src/etcd/client.h"

namespace quorum::etcd {

// What a verified snapshot is.
struct SnapshotDigestResult {
  uint64_t size = 0;   // bytes of the whole stream, trailer included (the file as stored)
  std::string sha256;  // lowercase hex SHA-256 of those bytes
};

// Hashes a snapshot stream as it is fed: the whole stream (what gets stored)
// and everything but its last 32 bytes (what etcd's trailer covers).
// Thread-compatible.
class SnapshotDigest {
 public:
  SnapshotDigest();
  ~SnapshotDigest();
  SnapshotDigest(const SnapshotDigest&) = delete;
  SnapshotDigest& operator=(const SnapshotDigest&) = delete;

  void Feed(std::string_view bytes);
  // DataLoss when the stream is shorter than its trailer or the trailer does
  // not match the bytes before it (a cut or corrupted snapshot).
  absl::StatusOr<SnapshotDigestResult> Finish();

 private:
  EVP_MD_CTX* whole_;
  EVP_MD_CTX* body_;      // all but the last 32 bytes seen so far
  std::string holdback_;  // the last (up to) 32 bytes seen: maybe the trailer
  uint64_t size_ = 0;
};

struct SnapshotInfo {
  int64_t revision = 0;  // the store's revision the snapshot holds (header.revision)
  SnapshotDigestResult digest;
};

// Streams a snapshot from exactly `endpoint` into `sink` (which may refuse a
// chunk with an error, ending the stream), checking the trailer.
// Errors: those of a Client call (errors.h; Unavailable when the endpoint
// cannot be reached), DataLoss for a cut or corrupted stream, the sink's
// error, Cancelled.
absl::StatusOr<SnapshotInfo> StreamSnapshot(
    Client& client, std::string_view endpoint,
    const std::function<absl::Status(std::string_view)>& sink, Cancellation* cancel);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_SNAPSHOT_H_
