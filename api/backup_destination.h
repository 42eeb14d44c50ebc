// Where an etcd snapshot is stored: an EtcdBackup's spec.destination and an
// EtcdCluster's spec.bootstrap.restore.source (aenix's field names). Decoding
// and the admission rules are in etcdbackup_types.h.
//
// Thread-safety: value types.
#ifndef QUORUM_API_BACKUP_DESTINATION_H_
#define QUORUM_API_BACKUP_DESTINATION_H_

#include <optional>
#include <string>

namespace quorum::api {

struct BackupS3 {
  std::string endpoint;  // http(s)://host[:port]
  std::string bucket;
  std::string key;     // object key; for a backup "" means "<namespace>/<cluster>/<backup>.db"
  std::string region;  // "" means us-east-1
  bool force_path_style = false;
  std::string credentials_secret;  // credentialsSecretRef.name
  bool operator==(const BackupS3&) const = default;
};

// The snapshot file a restore source reads from a claim when its subPath is
// empty, as the aenix operator does.
inline constexpr char kDefaultRestoreSnapshotFile[] = "snapshot.db";

struct BackupPvc {
  std::string claim_name;
  // A backup: the folder inside the claim ("" is its root). A restore
  // source: the snapshot file inside the claim ("" is
  // kDefaultRestoreSnapshotFile).
  std::string sub_path;
  bool operator==(const BackupPvc&) const = default;
};

// Exactly one of s3 and pvc once validated.
struct BackupDestination {
  std::optional<BackupS3> s3;
  std::optional<BackupPvc> pvc;
  bool operator==(const BackupDestination&) const = default;
};

}  // namespace quorum::api

#endif  // QUORUM_API_BACKUP_DESTINATION_H_
