// The phases of a one-shot backup object, EtcdBackup's and PostgresBackup's
// status.phase (aenix's names).
#ifndef QUORUM_API_BACKUP_PHASE_H_
#define QUORUM_API_BACKUP_PHASE_H_

#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kBackupPending = "Pending";
inline constexpr std::string_view kBackupStarted = "Started";
inline constexpr std::string_view kBackupComplete = "Complete";
inline constexpr std::string_view kBackupFailed = "Failed";

}  // namespace quorum::api

#endif  // QUORUM_API_BACKUP_PHASE_H_
