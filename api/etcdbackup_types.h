// EtcdBackup (etcd.aenix.io/v1alpha1, field names as aenix's etcd-operator
// v0.4): a one-shot snapshot of an EtcdCluster into S3 or a
// PersistentVolumeClaim, and the snapshot source a new EtcdCluster restores
// from (spec.bootstrap.restore.source has the same shape as a destination).
// docs/backup.md is the user-facing contract.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_ETCDBACKUP_TYPES_H_
#define QUORUM_API_ETCDBACKUP_TYPES_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/backup_destination.h"
#include "api/backup_phase.h"
#include "api/etcdbackup.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"

namespace quorum::api {

// The Secret keys of destination.s3.credentialsSecretRef (aenix's names).
inline constexpr std::string_view kS3AccessKeyIdKey = "AWS_ACCESS_KEY_ID";
inline constexpr std::string_view kS3SecretAccessKeyKey = "AWS_SECRET_ACCESS_KEY";

struct EtcdBackupSpec {
  std::string cluster_ref;  // clusterRef.name, an EtcdCluster in the backup's namespace
  BackupDestination destination;
};

struct BackupSnapshotStatus {
  std::string uri;  // s3://bucket/key or pvc://claim/path
  int64_t revision = 0;
  int64_t size = 0;
  std::string sha256;
  std::string taken_at;  // RFC 3339
  bool operator==(const BackupSnapshotStatus&) const = default;
};

struct EtcdBackupStatus {
  int64_t observed_generation = 0;
  std::string phase;
  std::string job_name;
  std::vector<Condition> conditions;
  std::optional<BackupSnapshotStatus> snapshot;
  bool operator==(const EtcdBackupStatus&) const = default;
};

struct EtcdBackup {
  ObjectMeta metadata;
  EtcdBackupSpec spec;
  EtcdBackupStatus status;
};

// Validates and decodes. InvalidArgument naming every bad field.
absl::StatusOr<EtcdBackup> ParseEtcdBackup(const nlohmann::json& obj);

// The admission rules (also run by ParseEtcdBackup): clusterRef.name set,
// exactly one destination, a usable S3 endpoint/bucket/key and credentials
// Secret, a relative subPath without "..", and (with `old`) an unchanged spec.
std::vector<FieldError> ValidateEtcdBackup(const nlohmann::json& obj, const nlohmann::json* old);

// The rules of a destination (or restore source) at `path`, e.g.
// "spec.destination" or "spec.bootstrap.restore.source"; `obj` is that field.
// A restore source must name the snapshot object: s3.key is required (aenix
// admits it empty, then its restore fails). pvc.subPath may be empty, as in
// aenix: the file is then kDefaultRestoreSnapshotFile at the claim's root.
std::vector<FieldError> ValidateBackupDestination(const nlohmann::json* obj,
                                                  const std::string& path,
                                                  bool restore_source = false);
// Decodes a destination at `path` (type errors into `errors`).
BackupDestination DecodeBackupDestination(const nlohmann::json* obj, const std::string& path,
                                          std::vector<FieldError>& errors);

nlohmann::json ToJson(const EtcdBackupStatus& status);
nlohmann::json ToJson(const BackupDestination& destination);

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUP_TYPES_H_
