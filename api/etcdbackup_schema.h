// The EtcdBackup schema source and the shared destination schema that
// EtcdCluster's spec.bootstrap.restore.source reuses. See etcdcluster_schema.h
// for the conventions ($refs inlined by openapi_schema.h).
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_ETCDBACKUP_SCHEMA_H_
#define QUORUM_API_ETCDBACKUP_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

// {s3 | pvc}: where a snapshot is written (or, for a restore, read from).
nlohmann::json BackupDestinationSchema(const char* description);

nlohmann::json EtcdBackupSchemaSource();
nlohmann::json EtcdBackupPrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUP_SCHEMA_H_
