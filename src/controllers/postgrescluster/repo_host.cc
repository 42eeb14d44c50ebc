// The repository host of a cluster with volume repositories (builders.h):
// one pod, `pgbackrest server` over the repositories' claims, reached by the
// members through a headless Service.
#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/tls.h"

namespace quorum::postgrescluster {
namespace {

// The claim template of one volume repository: named after the repository,
// labelled with the selector (the StatefulSet controller adds it too; the
// operator's cache keeps PVCs by app.kubernetes.io/name).
Json RepoClaimTemplate(const PostgresCluster& cluster, const api::PgBackRestRepo& repo) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", repo.name}, {"labels", LabelsJson(RepoHostSelector(cluster))}}},
          {"spec", repo.volume_claim_spec}};
}

}  // namespace

std::string RepoVolumePath(const std::string& repo) {
  return absl::StrCat(kRepoVolumeRoot, "/", repo);
}

// NOLINTNEXTLINE(readability-function-size): one StatefulSet literal, like its manifest
std::optional<Json> BuildRepoHostStatefulSet(const PostgresCluster& cluster) {
  std::optional<patroni::PgBackRestInput> pgbr = BuildPgBackRestInput(cluster);
  if (!HasVolumeRepos(cluster) || !pgbr.has_value()) return std::nullopt;
  const Names n = NamesOf(cluster);
  const patroni::PgBackRestTlsServer& server = *pgbr->tls_server;
  Json mounts = Json::array({{{"name", "config"}, {"mountPath", kConfigDir}, {"readOnly", true}},
                             {{"name", "tmp"}, {"mountPath", kTmpDir}},
                             {{"name", "tls"}, {"mountPath", kPostgresTlsDir}, {"readOnly", true}},
                             {{"name", "pgbackrest-client-ca"},
                              {"mountPath", kPgBackRestClientCaDir},
                              {"readOnly", true}}});
  Json claims = Json::array();
  for (const api::PgBackRestRepo& repo : cluster.spec.backups.pgbackrest->repos) {
    if (!repo.IsVolume()) continue;
    mounts.push_back({{"name", repo.name}, {"mountPath", RepoVolumePath(repo.name)}});
    claims.push_back(RepoClaimTemplate(cluster, repo));
  }
  // The server presents the members' certificate (it carries the host's
  // Service name) and admits clients of the pgBackRest client CA: the
  // members, with the one client certificate.
  Json container = {
      {"name", kPgBackRestContainerName},
      {"image", MemberImage(cluster)},
      {"command",
       Json::array({kPgBackRestServerScript, server.cert_file, server.key_file, server.ca_file})},
      {"env",
       Json::array({{{"name", "PGBACKREST_CONFIG"}, {"value", kPgBackRestRepoHostConfigFile}}})},
      {"ports", Json::array({{{"name", "pgbackrest"}, {"containerPort", server.port}}})},
      {"readinessProbe",
       {{"tcpSocket", {{"port", server.port}}}, {"periodSeconds", 10}, {"timeoutSeconds", 5}}},
      {"volumeMounts", mounts},
      {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}}}},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
  Json volumes = Json::array(
      {{{"name", "config"}, {"configMap", {{"name", n.config_map}, {"defaultMode", 0555}}}},
       {{"name", "tmp"}, {"emptyDir", Json::object()}},
       {{"name", "tls"},
        {"secret",
         {{"secretName", MountedTlsSecret(cluster)},
          {"items", Json::array({{{"key", "tls.crt"}, {"path", "tls.crt"}},
                                 {{"key", "tls.key"}, {"path", "tls.key"}}})},
          {"defaultMode", 0440}}}},
       {{"name", "pgbackrest-client-ca"},
        {"secret",
         {{"secretName", n.pgbackrest_client_secret},
          {"items", Json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})},
          {"defaultMode", 0440}}}}});
  Json labels = LabelsJson(RepoHostSelector(cluster));
  labels["app.kubernetes.io/managed-by"] = "quorum-operator";
  Json pod_spec = {{"containers", Json::array({container})},
                   {"volumes", volumes},
                   {"automountServiceAccountToken", false},
                   {"enableServiceLinks", false},
                   {"serviceAccountName", "default"},
                   {"terminationGracePeriodSeconds", 30},
                   {"securityContext", PostgresPodSecurityContext()}};
  return Json{{"apiVersion", "apps/v1"},
              {"kind", "StatefulSet"},
              {"metadata", Metadata(cluster, n.repo_host)},
              {"spec",
               {{"serviceName", n.repo_host},
                {"replicas", 1},
                {"selector", {{"matchLabels", LabelsJson(RepoHostSelector(cluster))}}},
                {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}},
                {"persistentVolumeClaimRetentionPolicy",
                 {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
                {"volumeClaimTemplates", claims}}}};
}

std::optional<Json> BuildRepoHostService(const PostgresCluster& cluster) {
  if (!HasVolumeRepos(cluster)) return std::nullopt;
  const Names n = NamesOf(cluster);
  return Json{{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", Metadata(cluster, n.repo_host)},
              {"spec",
               {{"clusterIP", "None"},
                {"selector", LabelsJson(RepoHostSelector(cluster))},
                {"ports", Json::array({{{"name", "pgbackrest"},
                                        {"port", kPgBackRestServerPort},
                                        {"targetPort", kPgBackRestServerPort},
                                        {"protocol", "TCP"}}})}}}};
}

}  // namespace quorum::postgrescluster
