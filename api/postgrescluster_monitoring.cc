// spec.monitoring: decoding, serialising and the schema
// (postgrescluster_monitoring_internal.h).
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_monitoring_internal.h"
#include "api/schema_nodes.h"

namespace quorum::api::internal {

using Json = nlohmann::json;

void DecodeMonitoring(Decoder& d, const Json* spec, PostgresMonitoringSpec& out) {
  const Json* monitoring = d.Member(spec, "spec", "monitoring");
  const Json* exporter = d.Member(monitoring, "spec.monitoring", "exporter");
  if (exporter == nullptr) return;
  const std::string at = "spec.monitoring.exporter";
  PostgresExporterSpec& e = out.exporter;
  if (d.Member(exporter, at, "enabled") != nullptr) {
    bool enabled = false;
    d.Bool(exporter, at, "enabled", enabled);
    e.enabled = enabled;
  }
  d.String(exporter, at, "image", e.image);
  d.Object(exporter, at, "resources", e.resources);
}

Json MonitoringJson(const PostgresMonitoringSpec& monitoring) {
  const PostgresExporterSpec& e = monitoring.exporter;
  Json exporter = Json::object();
  if (e.enabled.has_value()) exporter["enabled"] = *e.enabled;
  if (!e.image.empty()) exporter["image"] = e.image;
  if (!e.resources.is_null()) exporter["resources"] = e.resources;
  if (exporter.empty()) return Json();
  return {{"exporter", exporter}};
}

Json MonitoringSchema() {
  using schema::Bool;
  using schema::CoreRef;
  using schema::Object;
  using schema::String;
  const std::string what = absl::StrCat(
      "A PostgreSQL metrics exporter (prometheus-postgres-exporter) in every member pod, "
      "serving /metrics on port ",
      kExporterPort,
      " (named exporter) as role quorum_monitor (a member of pg_monitor, over TLS from the "
      "pod's loopback only; its password in Secret <cluster>-monitoring). See "
      "docs/monitoring.md. A change rolls the members, replicas first.");
  const std::string image =
      absl::StrCat("Image with prometheus-postgres-exporter 0.15 or later. Empty: ",
                   std::string(kDefaultExporterImage), ".");
  Json exporter = Object(
      what.c_str(),
      {{"enabled", Bool("Unset: on for a new cluster, while a cluster whose members were made "
                        "without it (by an earlier Quorum) keeps running without it. true adds "
                        "it, false removes it.")},
       {"resources", CoreRef("ResourceRequirements", "CPU and memory of the exporter container.")},
       {"image", String(image.c_str())}});
  return Object("Metrics of the members (docs/monitoring.md).", {{"exporter", exporter}});
}

}  // namespace quorum::api::internal
