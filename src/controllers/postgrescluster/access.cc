#include "src/controllers/postgrescluster/access.h"

#include "absl/strings/escaping.h"
#include "src/controllers/postgrescluster/pgbouncer.h"

namespace quorum::postgrescluster {
namespace {

Json Port(int port) { return {{"protocol", "TCP"}, {"port", port}}; }

}  // namespace

Json BuildRestApiSecret(const PostgresCluster& cluster, const std::string& password) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", Metadata(cluster, NamesOf(cluster).restapi_secret)},
      {"type", "kubernetes.io/basic-auth"},
      {"data",
       {{"username", absl::Base64Escape("quorum")}, {"password", absl::Base64Escape(password)}}}};
}

std::optional<Json> BuildNetworkPolicy(const PostgresCluster& cluster,
                                       const OperatorPeer& operator_peer) {
  if (!cluster.spec.network_policy.enabled) return std::nullopt;
  const Json members = {{"podSelector", {{"matchLabels", LabelsJson(ClusterSelector(cluster))}}}};
  const Json op = controllers::OperatorPeerJson(operator_peer);
  Json rest_rule = {{"ports", Json::array({Port(kPatroniPort)})},
                    {"from", Json::array({members, op})}};
  Json pg_rule = {{"ports", Json::array({Port(kPostgresPort)})}};
  if (const Json& from = cluster.spec.network_policy.postgres_from; from.is_array()) {
    // The user's peers (possibly none), the members and the operator.
    pg_rule["from"] = from;
    pg_rule["from"].push_back(members);
    pg_rule["from"].push_back(op);
  } else if (cluster.spec.service.type == "ClusterIP") {
    // Every pod of the namespace (an empty podSelector without a
    // namespaceSelector), the members and the operator.
    pg_rule["from"] = Json::array({{{"podSelector", Json::object()}}, members, op});
  }  // NodePort/LoadBalancer: no `from`, clients come from outside the cluster.
  // spec.proxy.pgBouncer: the pooler's pods, whatever postgresFrom admits.
  if (pg_rule.contains("from") && HasPgBouncer(cluster)) {
    pg_rule["from"].push_back(PgBouncerPeer(cluster));
  }
  Json ingress = Json::array({rest_rule, pg_rule});
  if (cluster.spec.backups.pgbackrest.has_value()) {
    // The cluster's backup Jobs reach the members' pgBackRest servers.
    ingress.push_back(
        {{"ports", Json::array({Port(kPgBackRestServerPort)})},
         {"from", Json::array({{{"podSelector",
                                 {{"matchLabels",
                                   {{kPgBackRestClientLabel, cluster.metadata.name}}}}}}})}});
  }
  // No rule for the exporter's port (spec.monitoring.exporter): as with an
  // EtcdCluster's metrics, Prometheus is admitted by a policy of the user's
  // beside this one (docs/monitoring.md), naming where it runs.
  return Json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata", Metadata(cluster, NamesOf(cluster).network_policy)},
              {"spec",
               {{"podSelector", {{"matchLabels", LabelsJson(ClusterSelector(cluster))}}},
                {"policyTypes", Json::array({"Ingress"})},
                {"ingress", ingress}}}};
}

std::optional<Json> BuildRepoHostNetworkPolicy(const PostgresCluster& cluster) {
  if (!cluster.spec.network_policy.enabled || !HasVolumeRepos(cluster)) return std::nullopt;
  const Json members = {{"podSelector", {{"matchLabels", LabelsJson(ClusterSelector(cluster))}}}};
  return Json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata", Metadata(cluster, NamesOf(cluster).repo_host)},
              {"spec",
               {{"podSelector", {{"matchLabels", LabelsJson(RepoHostSelector(cluster))}}},
                {"policyTypes", Json::array({"Ingress"})},
                {"ingress", Json::array({{{"ports", Json::array({Port(kPgBackRestServerPort)})},
                                          {"from", Json::array({members})}}})}}}};
}

}  // namespace quorum::postgrescluster
