// The backup Job of an EtcdBackup (pure): one pod that runs the operator
// image's `etcd-snapshot` subcommand against every member's client URL (it
// picks a healthy follower itself), with the cluster's TLS material mounted
// read-only, etcd's root credentials and the store's keys as environment
// variables from their Secrets (never in argv), and the destination claim
// mounted when the destination is a PVC. The result comes back as the
// container's termination message (snapshot_job.h ResultJson). Its pod
// carries etcdcluster::kSnapshotClientLabel, which the cluster's
// NetworkPolicy admits to the client port.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDBACKUP_JOB_H_
#define QUORUM_SRC_CONTROLLERS_ETCDBACKUP_JOB_H_

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"

namespace quorum::etcdbackup {

using Json = nlohmann::json;

inline constexpr char kBackupLabelName[] = "etcd-backup";
// How long one snapshot may take before the Job is failed.
inline constexpr int kJobDeadlineSeconds = 3600;

// "<backup>-snapshot", shortened with a hash to fit 63 characters.
std::string JobName(const api::EtcdBackup& backup);

// Where the snapshot goes: the S3 key (default "<ns>/<cluster>/<backup>.db")
// or the file name in the claim's subPath ("<cluster>-<backup>.db").
std::string DefaultS3Key(const api::EtcdBackup& backup);
std::string SnapshotFileName(const api::EtcdBackup& backup);

// The whole Job. `image` is the operator's own image.
Json BuildSnapshotJob(const api::EtcdBackup& backup, const api::EtcdCluster& cluster,
                      const std::string& image);

}  // namespace quorum::etcdbackup

#endif  // QUORUM_SRC_CONTROLLERS_ETCDBACKUP_JOB_H_
