// The Checking step of an in-place restore (restore.h), before anything is
// destroyed: the members' volumes hold the only copy of the WAL the primary
// has not archived yet (a partly filled segment waits up to archive_timeout,
// 60 s), and a restore right after a mistake needs exactly that WAL — the
// first commit after the target ends the recovery. So the operator has the
// primary close its current segment (pg_switch_wal) once per trigger and
// waits, bounded, until pg_stat_archiver shows it archived; only then do the
// members stop. When restore.set names a backup, the primary also asks
// pgBackRest which backups the repository holds (COPY ... FROM PROGRAM, as
// PostgreSQL's OS user with the members' pgBackRest configuration: the
// operator never execs into pods); a label it does not list is refused.
//
//   restore.set not in the repository → Failed, nothing stopped
//   pgBackRest cannot say (kArchiveWait) → Failed, nothing stopped
//   archived                          → Stopping
//   archiving fails (pg_stat_archiver) → Failed, nothing stopped — unless a
//       time target lies before the last successful archive (its WAL is in
//       the repository), then Stopping
//   neither within kArchiveWait       → Failed, nothing stopped
//   no primary answers                → waits kNoPrimaryWait, then Stopping
//       with what the repository holds (a cluster without a primary is a
//       reason to restore, not to refuse)
//
// DecideArchiveCheck is pure; the reconciler asks the primary over libpq.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_CHECK_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_CHECK_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster_types.h"

namespace quorum::postgrescluster {

inline constexpr absl::Duration kArchiveWait = absl::Minutes(2);
inline constexpr absl::Duration kNoPrimaryWait = absl::Minutes(1);
// How often a Checking restore asks the primary again.
inline constexpr absl::Duration kArchiveRecheck = absl::Seconds(2);

// What the primary said: the segment pg_switch_wal closed for this check and
// its pg_stat_archiver row (WAL file names as PostgreSQL prints them: 24 hex
// digits, or a .history / .backup file).
struct ArchiverView {
  std::string switched;
  std::string last_archived;
  std::optional<absl::Time> last_archived_at;
  std::string last_failed;
  std::optional<absl::Time> last_failed_at;
  // With restore.set: the labels of the backups the repository holds, as
  // pgBackRest listed them (an error: it could not be asked, and why).
  std::optional<absl::StatusOr<std::vector<std::string>>> backup_labels;
};

struct ArchiveDecision {
  std::string phase;  // api::kRestoreChecking (wait), kRestoreStopping or kRestoreFailed
  std::string message;
};

// From the restore asked for, what the primary said (an error: none could be
// asked, and why), and when Checking started. Pure.
ArchiveDecision DecideArchiveCheck(const api::PgBackRestInPlaceRestore& restore,
                                   const absl::StatusOr<ArchiverView>& view, absl::Time started,
                                   absl::Time now);

// The shell command printing pgBackRest's JSON info of repository `repo`
// (1-based), with the members' pgBackRest `options` (patroni::CommandOptions).
std::string BackupInfoCommand(const std::string& options, int repo);

// The backup labels in `pgbackrest info --output=json` (an array of stanzas,
// each with "backup": [{"label": ...}]), in its order. Errors:
// InvalidArgument when the text is not that JSON.
absl::StatusOr<std::vector<std::string>> BackupLabels(const std::string& info_json);

// Whether WAL file `archived` comes at or after segment `segment` (the same
// or a later timeline, log and segment); false when either is not a segment
// name (a .history file says nothing about segments).
bool ArchivedThrough(const std::string& archived, const std::string& segment);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_CHECK_H_
