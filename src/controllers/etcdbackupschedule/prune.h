// Deleting snapshots that retention drops (pure parts). Where deletion runs:
//   s3   the operator itself sends one signed DELETE per object, with the
//        keys of the destination's credentials Secret (read when there is
//        something to delete, never logged); no pod is needed.
//   pvc  files can only be removed from a pod that mounts the claim: a Job
//        running the operator image's `delete-snapshots` subcommand with the
//        claim mounted, named from a hash of the files so that a repeated
//        reconcile finds the same Job instead of creating another.
// A snapshot outside the current destination (the destination changed since
// it was taken) is not deleted; the reconciler stops tracking it.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PRUNE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PRUNE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdbackupschedule_types.h"
#include "src/backup/s3.h"

namespace quorum::etcdbackupschedule {

// The object of an s3:// URI in `dest`'s bucket. FailedPrecondition when the
// URI is not s3:// or names another bucket.
absl::StatusOr<backup::S3Location> S3LocationOf(const api::BackupS3& dest, const std::string& uri);

// The file's path inside the claim, from pvc://<claim>/<path>.
// FailedPrecondition when the URI is not pvc:// in `dest`'s claim, or the
// path is not a safe relative path.
absl::StatusOr<std::string> PvcPathOf(const api::BackupPvc& dest, const std::string& uri);

// "<schedule>-prune-<hash of the paths>", at most 63 characters.
std::string PruneJobName(const std::string& schedule, const std::vector<std::string>& paths);

// The Job deleting `paths` (relative to the claim's root) from `dest`'s
// claim, owned by the schedule; non-root, no API token, read-only root.
nlohmann::json BuildPruneJob(const api::EtcdBackupSchedule& schedule,
                             const std::vector<std::string>& paths, const std::string& image);

}  // namespace quorum::etcdbackupschedule

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUPSCHEDULE_PRUNE_H_
