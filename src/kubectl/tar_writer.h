// A minimal ustar (POSIX.1-1988) archive writer for `kubectl quorum report`:
// regular files only, mode 0644, one modification time, names split over the
// header's prefix and name fields when longer than 100 bytes. And gzip over
// zlib, so that the archive is the .tar.gz any tar reads.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_TAR_WRITER_H_
#define QUORUM_SRC_KUBECTL_TAR_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace quorum::kubectl {

struct TarEntry {
  std::string name;  // a relative path with '/' separators
  std::string data;
};

// The archive: a 512-byte header and the padded data per entry, then two
// zero blocks. Errors: InvalidArgument naming an entry whose name is empty,
// absolute, holds "..", or does not fit ustar (155-byte prefix + 100-byte
// name), or whose data is 8 GiB or more.
absl::StatusOr<std::string> BuildTar(const std::vector<TarEntry>& entries, absl::Time mtime);

// `data` compressed as one gzip member. Errors: Internal when zlib fails.
absl::StatusOr<std::string> Gzip(const std::string& data);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_TAR_WRITER_H_
