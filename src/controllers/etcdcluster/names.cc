#include "src/controllers/etcdcluster/names.h"

#include <algorithm>

#include "api/etcdcluster.h"

namespace quorum::etcdcluster {

Names NamesOf(const EtcdCluster& cluster) {
  Names n;
  n.cluster = cluster.metadata.name;
  n.ns = cluster.metadata.ns;
  n.statefulset = n.cluster;
  n.headless_service = n.cluster + "-headless";
  n.client_service = cluster.spec.service_template.metadata.name;
  if (n.client_service.empty()) n.client_service = n.cluster;
  n.state_configmap = n.cluster + "-cluster-state";
  n.pdb = n.cluster;
  n.network_policy = n.cluster;
  return n;
}

TlsMode TlsOf(const EtcdCluster& cluster) {
  const api::EtcdTlsSpec tls = api::EffectiveTls(cluster);
  const auto annotation = cluster.metadata.annotations.find(kPeerAutoTlsAnnotation);
  const bool auto_asked =
      annotation != cluster.metadata.annotations.end() && annotation->second == "true";
  return {.peer = !tls.peer_secret.empty(),
          .peer_auto = tls.peer_secret.empty() && auto_asked,
          .server = !tls.server_secret.empty(),
          .client = !tls.client_trusted_ca_secret.empty()};
}

std::string MemberName(const EtcdCluster& cluster, int ordinal) {
  return cluster.metadata.name + "-" + std::to_string(ordinal);
}

std::string PeerScheme(const EtcdCluster& cluster) {
  const TlsMode tls = TlsOf(cluster);
  return tls.peer || tls.peer_auto ? "https" : "http";
}

std::string PeerUrl(const EtcdCluster& cluster, int ordinal) {
  const Names n = NamesOf(cluster);
  return PeerScheme(cluster) + "://" + MemberName(cluster, ordinal) + "." + n.headless_service +
         "." + n.ns + ".svc:" + std::to_string(kPeerPort);
}

std::string MemberClientUrl(const EtcdCluster& cluster, int ordinal) {
  const Names n = NamesOf(cluster);
  return std::string(TlsOf(cluster).server ? "https" : "http") + "://" +
         MemberName(cluster, ordinal) + "." + n.headless_service + "." + n.ns +
         ".svc:" + std::to_string(kClientPort);
}

std::string ServiceClientUrl(const EtcdCluster& cluster) {
  const Names n = NamesOf(cluster);
  return std::string(TlsOf(cluster).server ? "https" : "http") + "://" + n.client_service + "." +
         n.ns + ".svc:" + std::to_string(kClientPort);
}

std::map<std::string, std::string> SelectorLabels(const EtcdCluster& cluster) {
  return {{"app.kubernetes.io/name", "etcd"},
          {"app.kubernetes.io/instance", cluster.metadata.name}};
}

std::map<std::string, std::string> CommonLabels(const EtcdCluster& cluster) {
  auto labels = SelectorLabels(cluster);
  labels["app.kubernetes.io/managed-by"] = "quorum-operator";
  return labels;
}

Json OwnerReference(const EtcdCluster& cluster) {
  return {{"apiVersion", std::string(api::kEtcdApiVersion)},
          {"kind", std::string(api::kEtcdClusterKind)},
          {"name", cluster.metadata.name},
          {"uid", cluster.metadata.uid},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

int DesiredReplicas(const EtcdCluster& cluster) { return std::max(0, cluster.spec.replicas); }

}  // namespace quorum::etcdcluster
