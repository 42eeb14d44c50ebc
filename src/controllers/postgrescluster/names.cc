#include "src/controllers/postgrescluster/names.h"

#include "absl/strings/str_replace.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/json_path.h"

namespace quorum::postgrescluster {

Names NamesOf(const Json& cluster) {
  Names n;
  n.cluster = Str(At(cluster, {"metadata", "name"}));
  n.ns = Str(At(cluster, {"metadata", "namespace"}));
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
  return n;
}

std::string StatefulSetName(const Json& cluster, const std::string& instance_set) {
  return NamesOf(cluster).cluster + "-" + instance_set;
}

std::string UserSecretName(const Json& cluster, const std::string& user) {
  return NamesOf(cluster).cluster + "-user-" + absl::StrReplaceAll(user, {{"_", "-"}});
}

std::map<std::string, std::string> ClusterSelector(const Json& cluster) {
  return {{std::string(api::kClusterLabel), NamesOf(cluster).cluster}};
}

std::map<std::string, std::string> InstanceSelector(const Json& cluster, const std::string& set) {
  auto labels = ClusterSelector(cluster);
  labels[std::string(api::kInstanceSetLabel)] = set;
  return labels;
}

std::map<std::string, std::string> CommonLabels(const Json& cluster) {
  auto labels = ClusterSelector(cluster);
  labels["app.kubernetes.io/name"] = "postgres";
  labels["app.kubernetes.io/instance"] = NamesOf(cluster).cluster;
  labels["app.kubernetes.io/managed-by"] = "quorum-operator";
  return labels;
}

Json OwnerReference(const Json& cluster) {
  return {{"apiVersion", std::string(api::kPostgresApiVersion)},
          {"kind", std::string(api::kPostgresClusterKind)},
          {"name", Str(At(cluster, {"metadata", "name"}))},
          {"uid", Str(At(cluster, {"metadata", "uid"}))},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

Json Metadata(const Json& cluster, const std::string& name) {
  Json labels = Json::object();
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  return {{"name", name},
          {"namespace", NamesOf(cluster).ns},
          {"labels", labels},
          {"ownerReferences", Json::array({OwnerReference(cluster)})}};
}

int DesiredMembers(const Json& cluster) {
  int n = 0;
  for (const Json& set : At(cluster, {"spec", "instances"})) {
    const Json& r = At(set, {"replicas"});
    n += r.is_number_integer() ? r.get<int>() : api::kDefaultInstanceReplicas;
  }
  return n;
}

bool UsesEtcd(const Json& cluster) {
  return Str(At(cluster, {"spec", "patroni", "dcs", "type"})) == api::kDcsEtcd;
}

bool PodsHaveApiAccess(const Json& cluster) {
  const Json& v = At(cluster, {"spec", "patroni", "podAPIAccess"});
  return v.is_boolean() ? v.get<bool>() : api::kDefaultPodApiAccess;
}

std::string KeyNamespace(const Json& cluster) {
  std::string ns = Str(At(cluster, {"spec", "patroni", "dcs", "etcd", "namespace"}));
  if (ns.empty()) ns = "/quorum/" + NamesOf(cluster).ns + "/";
  return ns;
}

}  // namespace quorum::postgrescluster
