// The names of the PostgresRole and PostgresDatabase resources
// (postgres.quorum.dev/v1alpha1), apart from their types, so that code naming
// the resources (the CRD generator, the controllers' resource constants) need
// not include them. The group and version are api/postgrescluster.h's.
//
// Thread-safety: constants only.
#ifndef QUORUM_API_POSTGRESROLE_H_
#define QUORUM_API_POSTGRESROLE_H_

#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kPostgresRoleKind = "PostgresRole";
inline constexpr std::string_view kPostgresRoleListKind = "PostgresRoleList";
inline constexpr std::string_view kPostgresRolePlural = "postgresroles";
inline constexpr std::string_view kPostgresRoleSingular = "postgresrole";
inline constexpr std::string_view kPostgresRoleCrdName = "postgresroles.postgres.quorum.dev";

inline constexpr std::string_view kPostgresDatabaseKind = "PostgresDatabase";
inline constexpr std::string_view kPostgresDatabaseListKind = "PostgresDatabaseList";
inline constexpr std::string_view kPostgresDatabasePlural = "postgresdatabases";
inline constexpr std::string_view kPostgresDatabaseSingular = "postgresdatabase";
inline constexpr std::string_view kPostgresDatabaseCrdName =
    "postgresdatabases.postgres.quorum.dev";

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESROLE_H_
