// PostgresBackup (postgres.quorum.dev/v1alpha1): one on-demand pgBackRest
// backup of a PostgresCluster into one of its repositories
// (spec.backups.pgbackrest.repos). One object is one backup, as EtcdBackup is
// one snapshot: status.phase Pending/Started/Complete/Failed, and what
// pgBackRest reports of the backup once Complete. docs/backup.md is the
// user-facing contract.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_POSTGRESBACKUP_TYPES_H_
#define QUORUM_API_POSTGRESBACKUP_TYPES_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/backup_phase.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"
#include "api/postgresbackup.h"

namespace quorum::api {

// spec.type: pgBackRest's backup types.
inline constexpr std::string_view kBackupTypeFull = "full";
inline constexpr std::string_view kBackupTypeDiff = "diff";
inline constexpr std::string_view kBackupTypeIncr = "incr";

struct PostgresBackupSpec {
  std::string cluster_ref;            // clusterRef.name, same namespace
  std::string repo_name;              // repo1..repo4, one of the cluster's repos
  std::string type{kBackupTypeFull};  // full | diff | incr
};

// What pgBackRest reports of a finished backup (`pgbackrest info`).
struct PgBackRestBackupInfo {
  std::string label;       // e.g. 20261204-101500F
  std::string type;        // full | diff | incr
  std::string repo;        // repo1..repo4
  std::string start_time;  // RFC 3339
  std::string stop_time;   // RFC 3339
  std::string lsn_start;
  std::string lsn_stop;
  std::string wal_start;  // the first WAL segment a restore of it needs
  std::string wal_stop;
  int64_t size = 0;       // bytes of the database
  int64_t repo_size = 0;  // bytes stored in the repository
  std::string prior;      // the backup a diff/incr builds on; "" for a full
  // The repository right after the backup (status.backup.repository): its
  // archived WAL, lowest and highest segment, and its oldest backup's end —
  // the earliest time a point-in-time recovery from it reaches. "" unknown.
  std::string repo_wal_min, repo_wal_max, repo_oldest_stop_time;
  bool operator==(const PgBackRestBackupInfo&) const = default;
};

struct PostgresBackupStatus {
  int64_t observed_generation = 0;
  std::string phase;  // kBackupPending | kBackupStarted | kBackupComplete | kBackupFailed
  std::string job_name;
  std::vector<Condition> conditions;  // Complete, Failed
  std::optional<PgBackRestBackupInfo> backup;
  bool operator==(const PostgresBackupStatus&) const = default;
};

struct PostgresBackup {
  ObjectMeta metadata;
  PostgresBackupSpec spec;
  PostgresBackupStatus status;
};

// The admission rules: clusterRef.name set, repoName repo1..repo4, type one
// of full/diff/incr, and (with `old`) an unchanged spec.
std::vector<FieldError> ValidatePostgresBackup(const nlohmann::json& obj,
                                               const nlohmann::json* old);

// Validates and decodes (defaults: type full). InvalidArgument naming every
// bad field.
absl::StatusOr<PostgresBackup> ParsePostgresBackup(const nlohmann::json& obj);

nlohmann::json ToJson(const PostgresBackupStatus& status);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESBACKUP_TYPES_H_
