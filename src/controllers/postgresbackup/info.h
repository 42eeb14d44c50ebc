// Reading what a backup Job reports (pure): its container's termination
// message {"info": <pgbackrest info --output=json --set=LABEL>, "repository":
// {walMin, walMax, oldestStop (unix seconds)}} (src/patroni/pgbackrest-backup.sh),
// into the PostgresBackup's status.backup. A message that is the info alone
// (a Job of an older operator) has no repository part.
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
