// `kubectl quorum restore CLUSTER --yes [--repo repoN] [--time T | --lsn L |
// --xid X] [--set LABEL]`: an in-place restore of a PostgresCluster from one
// of its own repositories (docs/backup.md, "Restoring a running cluster in
// place"), asked for the way a user would by hand — one merge patch of
// spec.backups.pgbackrest.restore and a new value of the trigger annotation
// (api::kRestoreTriggerAnnotation) — then waits until
// status.backups.pgbackrest.restore answers that trigger Succeeded or Failed.
// Everything written after the target is lost on every member, so the
// command does nothing without --yes.
//
// Thread-safety: the builders are pure; RunRestore as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_RESTORE_COMMAND_H_
#define QUORUM_SRC_KUBECTL_RESTORE_COMMAND_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct RestoreOptions {
  std::string ns;
  Target target;
  std::string repo;                         // "" the cluster's first repository
  std::string set;                          // a backup label; "" lets pgBackRest choose
  api::PgBackRestRestoreTarget to;          // at most one field; none: the end of the archive
  bool yes = false;                         // the user accepts losing what follows the target
  absl::Duration wait = absl::Minutes(30);  // zero: do not wait
  absl::Time now;                           // makes the trigger value
};

// Errors: InvalidArgument for an EtcdCluster target, more than one of
// --time/--lsn/--xid, or no --yes (the message says what is lost).
absl::Status ValidateRestoreOptions(const RestoreOptions& options);

// The one merge patch: the annotation and spec.backups.pgbackrest.restore
// (enabled, repoName, set — null when "" —, target with the other two
// fields null, or null when none is set).
nlohmann::json BuildRestorePatch(const RestoreOptions& options, const std::string& repo,
                                 const std::string& trigger);

// The record of `trigger` once final (Succeeded or Failed); nullopt before.
std::optional<api::PgBackRestRestoreStatus> FinalRestoreRecord(const api::PostgresCluster& cluster,
                                                               const std::string& trigger);

// What the command prints: exit 0 Succeeded, 1 Failed or (nullopt) no final
// result within the wait (the last phase seen in `last` is named).
CommandOutput RestoreOutcome(const std::string& cluster_name,
                             const std::optional<api::PgBackRestRestoreStatus>& record,
                             const api::PostgresCluster& last, absl::Duration waited);

// Patches the cluster, then waits (options.wait). Errors: as
// ValidateRestoreOptions; InvalidArgument when the cluster has no such
// repository (as `backup`); NotFound naming the cluster; DataLoss when it
// does not decode; other codes as the API answered (admission refusals name
// the field).
absl::StatusOr<CommandOutput> RunRestore(kube::Client& client, const RestoreOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_RESTORE_COMMAND_H_
