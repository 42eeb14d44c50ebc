// What `quorum-operator delete-snapshots` does in a schedule's prune Job: it
// removes snapshot files from a mounted claim. Paths are relative to the
// mount; an absolute path or one with "." or ".." parts is refused before
// anything is deleted, so a Job can never reach outside the claim. A file
// already gone counts as deleted (a Job that ran twice succeeds).
//
// Thread-safety: independent calls.
#ifndef QUORUM_SRC_BACKUP_DELETE_FILES_H_
#define QUORUM_SRC_BACKUP_DELETE_FILES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace quorum::backup {

// Errors: InvalidArgument (an unsafe path: nothing deleted), Internal (a file
// that exists and cannot be removed).
absl::Status DeleteSnapshotFiles(const std::string& dir, const std::vector<std::string>& paths);

}  // namespace quorum::backup

#endif  // QUORUM_SRC_BACKUP_DELETE_FILES_H_
