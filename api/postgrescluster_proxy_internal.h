// Internal to api/: spec.proxy and status.proxy of a PostgresCluster, kept out
// of the big files they belong to (postgrescluster_types.cc,
// postgrescluster_validation.cc, postgrescluster_schema.cc): decoding,
// serialising, defaulting, validation and the schema, in one place.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_PROXY_INTERNAL_H_
#define QUORUM_API_POSTGRESCLUSTER_PROXY_INTERNAL_H_

#include <nlohmann/json_fwd.hpp>

#include "api/decode.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation_internal.h"

namespace quorum::api::internal {

// spec.proxy from `spec` (the spec object, or null).
void DecodeProxy(Decoder& d, const nlohmann::json* spec, PostgresProxySpec& out);
// status.proxy from `status` (the status object, or null).
void DecodeProxyStatus(Decoder& d, const nlohmann::json* status, PostgresClusterStatus& out);
// spec.proxy and status.proxy as the API server stores them; null when absent.
nlohmann::json ProxyJson(const PostgresProxySpec& proxy);
nlohmann::json ProxyStatusJson(const PostgresClusterStatus& status);

// Fills replicas and poolMode of spec.proxy.pgBouncer when it is present.
void DefaultProxy(nlohmann::json& spec);

// spec.proxy: an object with pgBouncer; its replicas (0..16), poolMode
// (session, transaction or statement), config (at most 64 one-line settings
// with [a-z_] names, none of Quorum's: api/postgrescluster_pgbouncer.h),
// resources (an object) and image (a string).
void ValidateProxy(const nlohmann::json& spec, ErrorList& errors);

// The schema of spec.proxy and of status.proxy.
nlohmann::json ProxySchema();
nlohmann::json ProxyStatusSchema();

}  // namespace quorum::api::internal

#endif  // QUORUM_API_POSTGRESCLUSTER_PROXY_INTERNAL_H_
