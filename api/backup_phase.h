// The phases of a one-shot backup object, EtcdBackup's and PostgresBackup's
// status.phase (aenix's names).
#ifndef QUORUM_API_BACKUP_PHASE_H_
#define QUORUM_API_BACKUP_PHASE_H_

#include <string_view>

#include "absl/time/time.h"

namespace quorum::api {

inline constexpr std::string_view kBackupPending = "Pending";
inline constexpr std::string_view kBackupStarted = "Started";
inline constexpr std::string_view kBackupComplete = "Complete";
inline constexpr std::string_view kBackupFailed = "Failed";

// A backup that cannot start (its cluster missing, without quorum or a
// primary) within this long after its creation goes Failed with the reason:
// a Pending backup never waits forever, and a schedule's next run is a new
// backup.
inline constexpr absl::Duration kBackupStartTimeout = absl::Minutes(10);

}  // namespace quorum::api

#endif  // QUORUM_API_BACKUP_PHASE_H_
