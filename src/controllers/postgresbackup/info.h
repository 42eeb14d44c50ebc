// Reading what a backup Job reports (pure): `pgbackrest info --output=json
// --set=<label>` of the backup it took, as its container's termination
// message, into the PostgresBackup's status.backup.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_INFO_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_INFO_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "api/postgresbackup_types.h"

namespace quorum::postgresbackup {

// The one backup the output describes (the newest when it lists several).
// Errors: InvalidArgument when the text is not pgBackRest's JSON (cut short,
// an error message) or lists no backup.
absl::StatusOr<api::PgBackRestBackupInfo> ParseBackupInfo(std::string_view json_text);

}  // namespace quorum::postgresbackup

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESBACKUP_INFO_H_
