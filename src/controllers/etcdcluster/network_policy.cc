#include "src/controllers/etcdcluster/network_policy.h"

#include <algorithm>

#include "api/postgrescluster.h"
#include "src/base/json_access.h"

namespace quorum::etcdcluster {
namespace {

Json Port(int port) { return {{"protocol", "TCP"}, {"port", port}}; }

Json MatchLabels(const std::map<std::string, std::string>& labels) {
  Json out = Json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return {{"matchLabels", out}};
}

// Clients from outside the cluster reach the client Service's node ports or
// load balancer.
bool ServedOutside(const EtcdCluster& cluster) {
  const Json& spec = cluster.spec.service_template.spec;
  const std::string type = json_access::Str(json_access::At(spec, {"type"}));
  return type == "NodePort" || type == "LoadBalancer";
}

// The client port's sources besides clientFrom (or the namespace).
Json ClientPeers(const EtcdCluster& cluster, const Json& members, const Json& op,
                 std::vector<std::string> postgres_clients) {
  Json peers = Json::array(
      {members,
       op,
       {{"podSelector", MatchLabels({{kSnapshotClientLabel, cluster.metadata.name}})}}});
  std::sort(postgres_clients.begin(), postgres_clients.end());
  postgres_clients.erase(std::unique(postgres_clients.begin(), postgres_clients.end()),
                         postgres_clients.end());
  if (!postgres_clients.empty()) {
    peers.push_back({{"podSelector",
                      {{"matchExpressions", Json::array({{{"key", api::kClusterLabel},
                                                          {"operator", "In"},
                                                          {"values", postgres_clients}}})}}}});
  }
  return peers;
}

}  // namespace

std::optional<Json> BuildNetworkPolicy(const EtcdCluster& cluster,
                                       const controllers::OperatorPeer& operator_peer,
                                       std::vector<std::string> postgres_clients) {
  const api::EtcdNetworkPolicySpec& spec = cluster.spec.network_policy;
  if (!spec.enabled) return std::nullopt;
  const Json members = {{"podSelector", MatchLabels(SelectorLabels(cluster))}};
  const Json op = controllers::OperatorPeerJson(operator_peer);
  Json client = {{"ports", Json::array({Port(kClientPort)})}};
  Json others = ClientPeers(cluster, members, op, std::move(postgres_clients));
  if (spec.client_from.is_array()) {
    // The user's peers (possibly none), then ours.
    client["from"] = spec.client_from;
    for (Json& p : others) client["from"].push_back(std::move(p));
  } else if (!ServedOutside(cluster)) {
    // Every pod of the namespace (an empty podSelector without a
    // namespaceSelector), then ours, which may live elsewhere (the operator).
    client["from"] = Json::array({{{"podSelector", Json::object()}}});
    for (Json& p : others) client["from"].push_back(std::move(p));
  }  // NodePort/LoadBalancer without clientFrom: no `from`, clients come from outside.
  const Json ingress = Json::array(
      {{{"ports", Json::array({Port(kPeerPort)})}, {"from", Json::array({members})}},
       {{"ports", Json::array({Port(kMetricsPort)})}, {"from", Json::array({members, op})}},
       client});
  const Names n = NamesOf(cluster);
  Json labels = Json::object();
  for (const auto& [k, v] : CommonLabels(cluster)) labels[k] = v;
  return Json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata",
               {{"name", n.network_policy},
                {"namespace", n.ns},
                {"labels", labels},
                {"ownerReferences", Json::array({OwnerReference(cluster)})}}},
              {"spec",
               {{"podSelector", MatchLabels(SelectorLabels(cluster))},
                {"policyTypes", Json::array({"Ingress"})},
                {"ingress", ingress}}}};
}

}  // namespace quorum::etcdcluster
