// The PostgresBackup schema source (see etcdcluster_schema.h for the
// conventions; $refs are inlined by openapi_schema.h).
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESBACKUP_SCHEMA_H_
#define QUORUM_API_POSTGRESBACKUP_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

nlohmann::json PostgresBackupSchemaSource();
nlohmann::json PostgresBackupPrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESBACKUP_SCHEMA_H_
