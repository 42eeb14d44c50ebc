#include "src/controllers/postgrescluster/upgrade_job.h"

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/job_outcome.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/patroni/upgrade.h"

namespace quorum::postgrescluster {

std::string UpgradeJobName(const PostgresCluster& cluster) {
  return controllers::OneShotJobName(NamesOf(cluster).cluster, "upgrade");
}

Json BuildUpgradeJob(const PostgresCluster& cluster,
                     const api::PostgresMajorUpgradeStatus& upgrade) {
  const Names n = NamesOf(cluster);
  Json container = {
      {"name", "pg-upgrade"},
      {"image", MemberImage(cluster)},
      {"command", Json::array({"/bin/sh", "-c", std::string(patroni::UpgradeScript()), "pg-upgrade",
                               absl::StrCat(upgrade.from), absl::StrCat(upgrade.to),
                               DataDir(upgrade.from), DataDir(upgrade.to)})},
      {"env", Json::array({{{"name", "HOME"}, {"value", kTmpDir}},
                           {{"name", "TMPDIR"}, {"value", kTmpDir}}})},
      {"volumeMounts", Json::array({{{"name", "pgdata"}, {"mountPath", kDataMount}},
                                    {{"name", "tmp"}, {"mountPath", kTmpDir}}})},
      {"terminationMessagePolicy", "File"},
      {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}}},
      {"securityContext", controllers::RestrictedContainerSecurity()},
  };
  const Json volumes = Json::array({
      {{"name", "pgdata"}, {"persistentVolumeClaim", {{"claimName", "pgdata-" + upgrade.member}}}},
      {{"name", "tmp"}, {"emptyDir", Json::object()}},
  });
  Json pod_spec = controllers::OneShotPodSpec(container, volumes, kPostgresUid);
  // The members' own: with the default policy the kubelet would make the
  // data directory group-writable, and PostgreSQL refuses to start on it.
  pod_spec["securityContext"] = PostgresPodSecurityContext();
  const Json labels = {{"app.kubernetes.io/name", "postgres-upgrade"},
                       {"app.kubernetes.io/instance", n.cluster},
                       {"app.kubernetes.io/managed-by", "quorum-operator"}};
  return controllers::BuildOneShotJob(UpgradeJobName(cluster), n.ns, labels,
                                      {.api_version = std::string(api::kPostgresApiVersion),
                                       .kind = std::string(api::kPostgresClusterKind),
                                       .name = cluster.metadata.name,
                                       .uid = cluster.metadata.uid},
                                      kUpgradeJobDeadlineSeconds, pod_spec);
}

}  // namespace quorum::postgrescluster
