// The PostgresBackup resource's names (postgres.quorum.dev/v1alpha1), apart from its types
// (postgresbackup_types.h) so that code naming the resource — the CRD generator, the
// controllers' resource constants — need not include them. The group and
// version are api/postgrescluster.h's.
//
// Thread-safety: constants only.
#ifndef QUORUM_API_POSTGRESBACKUP_H_
#define QUORUM_API_POSTGRESBACKUP_H_

#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kPostgresBackupKind = "PostgresBackup";
inline constexpr std::string_view kPostgresBackupListKind = "PostgresBackupList";
inline constexpr std::string_view kPostgresBackupPlural = "postgresbackups";
inline constexpr std::string_view kPostgresBackupSingular = "postgresbackup";
inline constexpr std::string_view kPostgresBackupCrdName = "postgresbackups.postgres.quorum.dev";

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESBACKUP_H_
