#include "src/controllers/postgrescluster/monitoring.h"

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"

namespace quorum::postgrescluster {

bool PlanExporter(const PostgresCluster& cluster, const ExporterEvidence& evidence) {
  if (cluster.spec.monitoring.exporter.enabled.has_value()) {
    return *cluster.spec.monitoring.exporter.enabled;
  }
  return !evidence.has_statefulset || evidence.runs_exporter;
}

bool ExporterOn(const PostgresCluster& cluster) {
  return cluster.spec.monitoring.exporter.enabled.value_or(true);
}

std::string MonitoringSecretName(const PostgresCluster& cluster) {
  return NamesOf(cluster).cluster + "-monitoring";
}

std::vector<std::string> MonitorHba(const PostgresCluster& cluster) {
  if (!ExporterOn(cluster)) return {};
  const std::string role(api::kMonitorUserName);
  return {"hostssl postgres " + role + " 127.0.0.1/32 scram-sha-256",
          "host all " + role + " all reject", "local all " + role + " reject"};
}

Json ExporterContainer(const PostgresCluster& cluster) {
  const api::PostgresExporterSpec& spec = cluster.spec.monitoring.exporter;
  // TLS over loopback: pg_hba admits the role on hostssl only; the pod's own
  // server needs no verification of its name.
  const std::string uri = absl::StrCat("127.0.0.1:", kPostgresPort, "/postgres?sslmode=require");
  // No probes: a container's readiness is the pod's, and the pod's decides
  // whether the Services route clients to the member.
  Json container = {
      {"name", kExporterContainerName},
      {"image", spec.image.empty() ? std::string(api::kDefaultExporterImage) : spec.image},
      {"args",
       Json::array({absl::StrCat("--web.listen-address=:", api::kExporterPort),
                    // Per-table statistics of the one database it
                    // connects to: noise, and table names.
                    "--no-collector.stat_user_tables", "--no-collector.statio_user_tables"})},
      {"env", Json::array({{{"name", "DATA_SOURCE_URI"}, {"value", uri}},
                           {{"name", "DATA_SOURCE_USER"}, {"value", api::kMonitorUserName}},
                           {{"name", "DATA_SOURCE_PASS_FILE"},
                            {"value", absl::StrCat(kExporterSecretDir, "/password")}}})},
      {"ports", Json::array({{{"name", "exporter"}, {"containerPort", api::kExporterPort}}})},
      {"volumeMounts",
       Json::array(
           {{{"name", "exporter-secret"}, {"mountPath", kExporterSecretDir}, {"readOnly", true}}})},
      {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}}}},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
  if (spec.resources.is_object() && !spec.resources.empty())
    container["resources"] = spec.resources;
  return container;
}

Json ExporterVolume(const PostgresCluster& cluster) {
  return {{"name", "exporter-secret"},
          {"secret",
           {{"secretName", MonitoringSecretName(cluster)},
            {"items", Json::array({{{"key", "password"}, {"path", "password"}}})},
            {"defaultMode", 0440}}}};
}

}  // namespace quorum::postgrescluster
