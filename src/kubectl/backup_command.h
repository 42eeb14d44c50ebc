// `kubectl quorum backup CLUSTER [--repo repoN] [--type full|diff|incr]
// [--wait]`: creates one PostgresBackup of a PostgresCluster, named
// <cluster>-<UTC time to the second>, prints its name and, with --wait,
// waits for it to be Complete or Failed. An EtcdCluster is refused (exit 2):
// an EtcdBackup needs a destination (S3 or a PVC) that the cluster does not
// name, so it is written by hand (docs/backup.md).
//
// Thread-safety: the builders are pure; RunBackup as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_BACKUP_COMMAND_H_
#define QUORUM_SRC_KUBECTL_BACKUP_COMMAND_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct BackupOptions {
  std::string ns;
  Target target;
  std::string repo;  // "" the cluster's first repository
  std::string type{api::kBackupTypeFull};
  bool wait = false;
  absl::Duration timeout = absl::Hours(1);  // of the wait
  absl::Time now;                           // names the backup
};

// Errors: InvalidArgument for a type other than full, diff or incr.
absl::Status ValidateBackupOptions(const BackupOptions& options);

// <cluster>-YYYYMMDD-HHMMSS (UTC).
std::string BackupObjectName(const std::string& cluster, absl::Time now);

// The repository to back up into: `requested`, or the first of
// spec.backups.pgbackrest.repos. Errors: InvalidArgument when the cluster
// has no repository or none named `requested` (the message lists them).
absl::StatusOr<std::string> ChooseBackupRepo(const api::PostgresCluster& cluster,
                                             const std::string& requested);

// The PostgresBackup object to create.
nlohmann::json BuildPostgresBackup(const std::string& name, const std::string& cluster,
                                   const std::string& repo, const std::string& type);

// Whether the backup is over (Complete or Failed).
bool BackupFinished(const api::PostgresBackup& backup);

// What --wait prints: exit 0 Complete, 1 Failed or still running after
// `waited` (then `finished` is false).
CommandOutput BackupOutcome(const api::PostgresBackup& backup, bool finished,
                            absl::Duration waited);

// Errors: as ValidateBackupOptions and ChooseBackupRepo; InvalidArgument for
// an EtcdCluster (not supported); NotFound naming the cluster; AlreadyExists
// when a backup of that name exists (one per second); DataLoss when a stored
// object does not decode; other codes as the API answered.
absl::StatusOr<CommandOutput> RunBackup(kube::Client& client, const BackupOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_BACKUP_COMMAND_H_
