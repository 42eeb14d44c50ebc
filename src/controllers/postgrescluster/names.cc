#include "src/controllers/postgrescluster/names.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "api/postgrescluster.h"

namespace quorum::postgrescluster {

Names NamesOf(const PostgresCluster& cluster) {
  Names n;
  n.cluster = cluster.metadata.name;
  n.ns = cluster.metadata.ns;
  n.config_map = n.cluster + "-patroni";
  n.primary_service = n.cluster;
  n.replica_service = n.cluster + "-replicas";
  n.pods_service = n.cluster + "-pods";
  n.config_service = n.cluster + "-config";
  n.service_account = n.cluster + "-instance";
  n.role = n.cluster + "-instance";
  n.superuser_secret = n.cluster + "-superuser";
  n.replication_secret = n.cluster + "-replication";
  n.pdb = n.cluster;
  n.ca_secret = n.cluster + "-ca";
  n.tls_secret = n.cluster + "-tls";
  n.restapi_secret = n.cluster + "-patroni-api";
  n.network_policy = n.cluster;
  n.pgbackrest_client_secret = n.cluster + "-pgbackrest-client";
  n.repo_host = n.cluster + "-repo-host";
  return n;
}

std::string StatefulSetName(const PostgresCluster& cluster, const std::string& instance_set) {
  return NamesOf(cluster).cluster + "-" + instance_set;
}

std::vector<std::string> MemberPodNames(const PostgresCluster& cluster) {
  std::vector<std::string> out;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    const std::string sts = StatefulSetName(cluster, set.name);
    for (int32_t i = 0; i < set.replicas; ++i) out.push_back(absl::StrCat(sts, "-", i));
  }
  return out;
}

std::string UserSecretName(const PostgresCluster& cluster, const std::string& user) {
  return NamesOf(cluster).cluster + "-user-" + absl::StrReplaceAll(user, {{"_", "-"}});
}

std::string EtcdUserName(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  return "quorum-pg." + n.ns + "." + n.cluster;
}

std::string EtcdUserSecretName(const PostgresCluster& cluster) {
  return NamesOf(cluster).cluster + "-etcd-user";
}

std::string EtcdClientSecretName(const PostgresCluster& cluster) {
  return NamesOf(cluster).cluster + "-etcd-client";
}

bool HasVolumeRepos(const PostgresCluster& cluster) {
  const std::optional<api::PgBackRestSpec>& pgbr = cluster.spec.backups.pgbackrest;
  if (!pgbr.has_value()) return false;
  for (const api::PgBackRestRepo& r : pgbr->repos) {
    if (r.IsVolume()) return true;
  }
  return false;
}

std::string RepoHostDnsName(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  return n.repo_host + "." + n.ns + ".svc";
}

std::string RepoClaimName(const PostgresCluster& cluster, const std::string& repo) {
  return repo + "-" + NamesOf(cluster).repo_host + "-0";
}

std::map<std::string, std::string> ClusterSelector(const PostgresCluster& cluster) {
  return {{std::string(api::kClusterLabel), NamesOf(cluster).cluster}};
}

std::map<std::string, std::string> InstanceSelector(const PostgresCluster& cluster,
                                                    const std::string& set) {
  auto labels = ClusterSelector(cluster);
  labels[std::string(api::kInstanceSetLabel)] = set;
  return labels;
}

std::map<std::string, std::string> RepoHostSelector(const PostgresCluster& cluster) {
  return {{"app.kubernetes.io/name", "postgres-repo-host"},
          {"app.kubernetes.io/instance", NamesOf(cluster).cluster}};
}

Json LabelsJson(const std::map<std::string, std::string>& labels) {
  Json out = Json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return out;
}

std::map<std::string, std::string> CommonLabels(const PostgresCluster& cluster) {
  auto labels = ClusterSelector(cluster);
  labels["app.kubernetes.io/name"] = "postgres";
  labels["app.kubernetes.io/instance"] = NamesOf(cluster).cluster;
  labels["app.kubernetes.io/managed-by"] = "quorum-operator";
  return labels;
}

Json OwnerReference(const PostgresCluster& cluster) {
  return {{"apiVersion", std::string(api::kPostgresApiVersion)},
          {"kind", std::string(api::kPostgresClusterKind)},
          {"name", cluster.metadata.name},
          {"uid", cluster.metadata.uid},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

Json Metadata(const PostgresCluster& cluster, const std::string& name) {
  Json labels = Json::object();
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  return {{"name", name},
          {"namespace", NamesOf(cluster).ns},
          {"labels", labels},
          {"ownerReferences", Json::array({OwnerReference(cluster)})}};
}

int DesiredMembers(const PostgresCluster& cluster) {
  int n = 0;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) n += set.replicas;
  return n;
}

bool UsesEtcd(const PostgresCluster& cluster) { return cluster.spec.patroni.dcs.UsesEtcd(); }

bool PodsHaveApiAccess(const PostgresCluster& cluster) {
  return cluster.spec.patroni.pod_api_access;
}

std::string KeyNamespace(const PostgresCluster& cluster) {
  std::string ns = cluster.spec.patroni.dcs.etcd.key_namespace;
  if (ns.empty()) ns = "/quorum/" + NamesOf(cluster).ns + "/";
  return ns;
}

}  // namespace quorum::postgrescluster
