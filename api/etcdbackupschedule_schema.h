// The EtcdBackupSchedule schema source (see etcdcluster_schema.h for the
// conventions). Structural checks (minimums, patterns) are in the schema; the
// cron grammar and durations are checked by the webhook
// (etcdbackupschedule_types.h ValidateEtcdBackupSchedule), which names the field.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_ETCDBACKUPSCHEDULE_SCHEMA_H_
#define QUORUM_API_ETCDBACKUPSCHEDULE_SCHEMA_H_

#include <nlohmann/json_fwd.hpp>

namespace quorum::api {

nlohmann::json EtcdBackupScheduleSchemaSource();
nlohmann::json EtcdBackupSchedulePrinterColumns();

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDBACKUPSCHEDULE_SCHEMA_H_
