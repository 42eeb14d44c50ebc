// The PostgresRole and PostgresDatabase schema sources (see
// etcdcluster_schema.h for the conventions; $refs are inlined by
// openapi_schema.h). CEL rules carry what the API server can check alone
// (immutability, enums, lengths); the webhook (postgres_objects.h's rules)
// the rest.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRES_OBJECTS_SCHEMA_H_
#define QUORUM_API_POSTGRES_OBJECTS_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

nlohmann::json PostgresRoleSchemaSource();
nlohmann::json PostgresRolePrinterColumns();
nlohmann::json PostgresDatabaseSchemaSource();
nlohmann::json PostgresDatabasePrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRES_OBJECTS_SCHEMA_H_
