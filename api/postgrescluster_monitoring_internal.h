// Internal to api/: spec.monitoring of a PostgresCluster, kept out of the big
// files it belongs to (postgrescluster_types.cc, postgrescluster_schema.cc):
// decoding, serialising and the schema, in one place. Its rules are the
// schema's (types only); the reconciler decides what an unset `enabled`
// means (src/controllers/postgrescluster/monitoring.h).
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_MONITORING_INTERNAL_H_
#define QUORUM_API_POSTGRESCLUSTER_MONITORING_INTERNAL_H_

#include <nlohmann/json_fwd.hpp>

#include "api/decode.h"
#include "api/postgrescluster_types.h"

namespace quorum::api::internal {

// spec.monitoring from `spec` (the spec object, or null).
void DecodeMonitoring(Decoder& d, const nlohmann::json* spec, PostgresMonitoringSpec& out);
// spec.monitoring as the API server stores it; null when nothing is set.
nlohmann::json MonitoringJson(const PostgresMonitoringSpec& monitoring);
// The schema of spec.monitoring.
nlohmann::json MonitoringSchema();

}  // namespace quorum::api::internal

#endif  // QUORUM_API_POSTGRESCLUSTER_MONITORING_INTERNAL_H_
