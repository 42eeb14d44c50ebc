#include "src/controllers/etcdcluster/names.h"

#include "api/etcdcluster.h"
#include "src/controllers/etcdcluster/json_path.h"

namespace quorum::etcdcluster {

Names NamesOf(const Json& cluster) {
  Names n;
  n.cluster = Str(At(cluster, {"metadata", "name"}));
  n.ns = Str(At(cluster, {"metadata", "namespace"}));
  n.statefulset = n.cluster;
  n.headless_service = n.cluster + "-headless";
  n.client_service = Str(At(cluster, {"spec", "serviceTemplate", "metadata", "name"}));
  if (n.client_service.empty()) n.client_service = n.cluster;
  n.state_configmap = n.cluster + "-cluster-state";
  n.pdb = n.cluster;
  return n;
}

TlsMode TlsOf(const Json& cluster) {
  const Json& tls = At(cluster, {"spec", "security", "tls"});
  TlsMode m;
  m.peer = !Str(At(tls, {"peerSecret"})).empty();
  m.server = !Str(At(tls, {"serverSecret"})).empty();
  m.client = !Str(At(tls, {"clientTrustedCASecret"})).empty();
  return m;
}

std::string MemberName(const Json& cluster, int ordinal) {
  return NamesOf(cluster).cluster + "-" + std::to_string(ordinal);
}

std::string PeerUrl(const Json& cluster, int ordinal) {
  const Names n = NamesOf(cluster);
  return std::string(TlsOf(cluster).peer ? "https" : "http") + "://" +
         MemberName(cluster, ordinal) + "." + n.headless_service + "." + n.ns +
         ".svc:" + std::to_string(kPeerPort);
}

std::string MemberClientUrl(const Json& cluster, int ordinal) {
  const Names n = NamesOf(cluster);
  return std::string(TlsOf(cluster).server ? "https" : "http") + "://" +
         MemberName(cluster, ordinal) + "." + n.headless_service + "." + n.ns +
         ".svc:" + std::to_string(kClientPort);
}

std::string ServiceClientUrl(const Json& cluster) {
  const Names n = NamesOf(cluster);
  return std::string(TlsOf(cluster).server ? "https" : "http") + "://" + n.client_service + "." +
         n.ns + ".svc:" + std::to_string(kClientPort);
}

std::map<std::string, std::string> SelectorLabels(const Json& cluster) {
  return {{"app.kubernetes.io/name", "etcd"},
          {"app.kubernetes.io/instance", NamesOf(cluster).cluster}};
}

std::map<std::string, std::string> CommonLabels(const Json& cluster) {
  auto labels = SelectorLabels(cluster);
  labels["app.kubernetes.io/managed-by"] = "quorum-operator";
  return labels;
}

Json OwnerReference(const Json& cluster) {
  return {{"apiVersion", std::string(api::kEtcdApiVersion)},
          {"kind", std::string(api::kEtcdClusterKind)},
          {"name", Str(At(cluster, {"metadata", "name"}))},
          {"uid", Str(At(cluster, {"metadata", "uid"}))},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

int DesiredReplicas(const Json& cluster) {
  const Json& r = At(cluster, {"spec", "replicas"});
  if (!r.is_number_integer()) return api::kDefaultReplicas;
  return std::max<int>(0, r.get<int>());
}

}  // namespace quorum::etcdcluster
