// The Checking step of an in-place restore (restore.h), before anything is
// destroyed: the members' volumes hold the only copy of the WAL the primary
// has not archived yet (a partly filled segment waits up to archive_timeout,
// 60 s), and a restore right after a mistake needs exactly that WAL — the
// first commit after the target ends the recovery. So the operator has the
// primary close its current segment (pg_switch_wal) once per trigger and
// waits, bounded, until pg_stat_archiver shows it archived; only then do the
// members stop.
//
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

// Whether WAL file `archived` comes at or after segment `segment` (the same
// or a later timeline, log and segment); false when either is not a segment
// name (a .history file says nothing about segments).
bool ArchivedThrough(const std::string& archived, const std::string& segment);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_RESTORE_CHECK_H_
