// spec.proxy and status.proxy: decoding, serialising and defaulting
// (postgrescluster_proxy_internal.h).
#include <nlohmann/json.hpp>
#include <string>

#include "api/postgrescluster.h"
#include "api/postgrescluster_proxy_internal.h"

namespace quorum::api::internal {

using Json = nlohmann::json;

void DecodeProxy(Decoder& d, const Json* spec, PostgresProxySpec& out) {
  const Json* proxy = d.Member(spec, "spec", "proxy");
  const Json* pgb = d.Member(proxy, "spec.proxy", "pgBouncer");
  if (pgb == nullptr) return;
  const std::string at = "spec.proxy.pgBouncer";
  PgBouncerSpec& p = out.pgbouncer.emplace();
  d.Int32(pgb, at, "replicas", p.replicas);
  d.String(pgb, at, "poolMode", p.pool_mode);
  if (p.pool_mode.empty()) p.pool_mode = std::string(kDefaultPgBouncerPoolMode);
  d.StringMap(pgb, at, "config", p.config);
  d.Object(pgb, at, "resources", p.resources);
  d.String(pgb, at, "image", p.image);
}

void DecodeProxyStatus(Decoder& d, const Json* status, PostgresClusterStatus& out) {
  const Json* proxy = d.Member(status, "status", "proxy");
  const Json* pgb = d.Member(proxy, "status.proxy", "pgBouncer");
  if (pgb == nullptr) return;
  const std::string at = "status.proxy.pgBouncer";
  PgBouncerStatus& s = out.pgbouncer.emplace();
  d.Int32(pgb, at, "replicas", s.replicas);
  d.Int32(pgb, at, "readyReplicas", s.ready_replicas);
  d.String(pgb, at, "service", s.service);
}

Json ProxyJson(const PostgresProxySpec& proxy) {
  if (!proxy.pgbouncer.has_value()) return Json();
  const PgBouncerSpec& p = *proxy.pgbouncer;
  Json pgb = {{"replicas", p.replicas}, {"poolMode", p.pool_mode}};
  if (!p.config.empty()) pgb["config"] = p.config;
  if (!p.resources.is_null()) pgb["resources"] = p.resources;
  if (!p.image.empty()) pgb["image"] = p.image;
  return {{"pgBouncer", pgb}};
}

Json ProxyStatusJson(const PostgresClusterStatus& status) {
  if (!status.pgbouncer.has_value()) return Json();
  const PgBouncerStatus& s = *status.pgbouncer;
  return {
      {"pgBouncer",
       {{"replicas", s.replicas}, {"readyReplicas", s.ready_replicas}, {"service", s.service}}}};
}

void DefaultProxy(Json& spec) {
  auto proxy = spec.find("proxy");
  if (proxy == spec.end() || !proxy->is_object()) return;
  auto pgb = proxy->find("pgBouncer");
  if (pgb == proxy->end() || !pgb->is_object()) return;
  for (const auto& [key, value] :
       {std::pair<const char*, Json>{"replicas", kDefaultPgBouncerReplicas},
        {"poolMode", std::string(kDefaultPgBouncerPoolMode)}}) {
    auto it = pgb->find(key);
    if (it == pgb->end() || it->is_null()) (*pgb)[key] = value;
  }
}

}  // namespace quorum::api::internal
