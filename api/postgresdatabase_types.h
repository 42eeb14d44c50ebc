// PostgresDatabase (postgres.quorum.dev/v1alpha1): one database of a
// PostgresCluster in the same namespace, with its owner, extensions, schemas,
// connection limit and grants, modelled on CloudNativePG's Database. The
// controller creates the database and brings it to the spec without removing
// what the spec does not name (a grant made by hand stays); it drops the
// database on delete only with reclaimPolicy delete. docs/databases.md is the
// user-facing contract.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_POSTGRESDATABASE_TYPES_H_
#define QUORUM_API_POSTGRESDATABASE_TYPES_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"
#include "api/postgres_objects.h"
#include "api/postgresrole.h"

namespace quorum::api {

struct DatabaseExtension {
  std::string name;
  std::string schema;  // "" = the extension's default
  bool operator==(const DatabaseExtension&) const = default;
};

struct DatabaseSchema {
  std::string name;
  std::string owner;  // "" = the database's owner
  bool operator==(const DatabaseSchema&) const = default;
};

struct DatabaseGrant {
  std::string role;
  std::vector<std::string> privileges;  // upper case, as admitted
  std::string schema;                   // "": on the database
  bool operator==(const DatabaseGrant&) const = default;
};

struct PostgresDatabaseSpec {
  std::string cluster;  // immutable
  std::string name;     // metadata.name when unset; immutable
  std::string owner;    // "" = the superuser keeps it
  std::vector<DatabaseExtension> extensions;
  std::vector<DatabaseSchema> schemas;
  int32_t connection_limit = -1;
  std::vector<DatabaseGrant> grants;
  std::string reclaim_policy{kReclaimRetain};
};

struct PostgresDatabase {
  ObjectMeta metadata;
  PostgresDatabaseSpec spec;
  PostgresObjectStatus status;
};

// The admission rules, each named by its field: cluster set; the database
// name valid and not postgres/template0/template1; owner and grant roles
// valid and not reserved; extensions in AllowedExtensions(); schema names
// valid, not pg_* nor information_schema; privileges from
// DatabasePrivileges() (or SchemaPrivileges() with a schema); no
// duplicates; connectionLimit >= -1; reclaimPolicy retain or delete; with
// `old`, cluster and the effective name unchanged.
std::vector<FieldError> ValidatePostgresDatabase(const nlohmann::json& obj,
                                                 const nlohmann::json* old);

// Validates and decodes (defaults applied). InvalidArgument naming every bad
// field.
absl::StatusOr<PostgresDatabase> ParsePostgresDatabase(const nlohmann::json& obj);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESDATABASE_TYPES_H_
