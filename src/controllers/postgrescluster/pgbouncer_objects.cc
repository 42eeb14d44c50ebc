// The pooler's Deployment, Service and NetworkPolicy (pgbouncer.h).
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_pgbouncer.h"
#include "src/controllers/postgrescluster/pgbouncer.h"

namespace quorum::postgrescluster {
namespace {

Json PodSpec(const PostgresCluster& cluster) {
  const api::PgBouncerSpec& spec = *cluster.spec.proxy.pgbouncer;
  const PgBouncerNames n = PgBouncerNamesOf(cluster);
  auto tcp_probe = [](int period, int failures) {
    return Json{{"tcpSocket", {{"port", kPostgresPort}}},
                {"periodSeconds", period},
                {"timeoutSeconds", 3},
                {"failureThreshold", failures}};
  };
  Json container = {
      {"name", kPgBouncerContainerName},
      {"image", api::PgBouncerImage(spec)},
      {"args", Json::array({kPgBouncerIniFile})},
      {"ports", Json::array({{{"name", kPostgresPortName}, {"containerPort", kPostgresPort}}})},
      {"readinessProbe", tcp_probe(5, 2)},
      {"livenessProbe", tcp_probe(10, 6)},
      {"volumeMounts",
       Json::array({{{"name", "config"}, {"mountPath", kPgBouncerConfigDir}, {"readOnly", true}},
                    {{"name", "auth"}, {"mountPath", kPgBouncerAuthDir}, {"readOnly", true}},
                    {{"name", "tls"}, {"mountPath", kPgBouncerTlsDir}, {"readOnly", true}},
                    {{"name", "tmp"}, {"mountPath", "/tmp"}}})},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
  if (spec.resources.is_object() && !spec.resources.empty()) {
    container["resources"] = spec.resources;
  }
  auto secret_files = [](const std::string& secret, Json items) {
    return Json{{"secretName", secret}, {"items", std::move(items)}, {"defaultMode", 0440}};
  };
  Json tls_items = Json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}},
                                {{"key", "tls.crt"}, {"path", "tls.crt"}},
                                {{"key", "tls.key"}, {"path", "tls.key"}}});
  Json volumes = Json::array(
      {{{"name", "config"}, {"configMap", {{"name", n.name}, {"defaultMode", 0444}}}},
       {{"name", "auth"},
        {"secret", secret_files(n.auth_secret, Json::array({{{"key", "userlist.txt"},
                                                             {"path", "userlist.txt"}}}))}},
       {{"name", "tls"}, {"secret", secret_files(PgBouncerMountedTlsSecret(cluster), tls_items)}},
       {{"name", "tmp"}, {"emptyDir", Json::object()}}});
  // One pod per node where there are several; one node still runs them all.
  Json affinity = {
      {"podAntiAffinity",
       {{"preferredDuringSchedulingIgnoredDuringExecution",
         Json::array({{{"weight", 100},
                       {"podAffinityTerm",
                        {{"topologyKey", "kubernetes.io/hostname"},
                         {"labelSelector",
                          {{"matchLabels", LabelsJson(PgBouncerSelector(cluster))}}}}}}})}}}};
  return {{"containers", Json::array({container})},
          {"volumes", volumes},
          {"affinity", affinity},
          {"automountServiceAccountToken", false},
          {"serviceAccountName", "default"},
          {"terminationGracePeriodSeconds", 30},
          {"securityContext",
           {{"runAsNonRoot", true},
            {"runAsUser", kPgBouncerUid},
            {"runAsGroup", kPgBouncerUid},
            {"fsGroup", kPgBouncerUid},
            {"seccompProfile", {{"type", "RuntimeDefault"}}}}}};
}

}  // namespace

Json BuildPgBouncerDeployment(const PostgresCluster& cluster, const std::string& tls_digest) {
  const api::PgBouncerSpec& spec = *cluster.spec.proxy.pgbouncer;
  const Json selector = LabelsJson(PgBouncerSelector(cluster));
  Json template_meta = {
      {"labels", selector},
      {"annotations",
       {{kPgBouncerConfigAnnotation, PgBouncerDigest({PgBouncerIni(cluster), tls_digest})}}}};
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).name)},
      {"spec",
       {{"replicas", spec.replicas},
        {"selector", {{"matchLabels", selector}}},
        // A new pod is ready before an old one goes: clients always find one.
        {"strategy",
         {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", 1}}}}},
        {"template", {{"metadata", template_meta}, {"spec", PodSpec(cluster)}}}}}};
}

Json BuildPgBouncerService(const PostgresCluster& cluster) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).name)},
          {"spec",
           {{"type", "ClusterIP"},
            {"selector", LabelsJson(PgBouncerSelector(cluster))},
            {"ports", Json::array({{{"name", kPostgresPortName},
                                    {"port", kPostgresPort},
                                    {"targetPort", kPostgresPort},
                                    {"protocol", "TCP"}}})}}}};
}

std::optional<Json> BuildPgBouncerNetworkPolicy(const PostgresCluster& cluster,
                                                const controllers::OperatorPeer& operator_peer) {
  if (!cluster.spec.network_policy.enabled) return std::nullopt;
  // The peers the members' PostgreSQL port admits (access.h): postgresFrom,
  // else every pod of the namespace; and the operator.
  Json from = cluster.spec.network_policy.postgres_from.is_array()
                  ? cluster.spec.network_policy.postgres_from
                  : Json::array({{{"podSelector", Json::object()}}});
  from.push_back(controllers::OperatorPeerJson(operator_peer));
  Json rule = {{"ports", Json::array({{{"protocol", "TCP"}, {"port", kPostgresPort}}})},
               {"from", from}};
  return Json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata", Metadata(cluster, PgBouncerNamesOf(cluster).name)},
              {"spec",
               {{"podSelector", {{"matchLabels", LabelsJson(PgBouncerSelector(cluster))}}},
                {"policyTypes", Json::array({"Ingress"})},
                {"ingress", Json::array({rule})}}}};
}

}  // namespace quorum::postgrescluster
