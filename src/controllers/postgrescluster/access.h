// Who may call a PostgresCluster's members (issue 15.2), pure builders:
//   * <cluster>-patroni-api (kubernetes.io/basic-auth, owned, created once):
//     the REST API's credentials; Patroni demands them for every unsafe
//     method, the operator sends them (switchover, failover, reload), and
//     patronictl in the pod reads them from the same environment;
//   * the NetworkPolicy <cluster> (spec.networkPolicy.enabled, default
//     true): Patroni's REST API port only from the cluster's own pods and
//     the operator's pods; PostgreSQL's port from those and from the peers
//     of spec.networkPolicy.postgresFrom when it is set ([] admits nobody
//     else); unset, from every pod of the cluster's namespace — or from
//     anywhere when the primary Service is a NodePort or LoadBalancer (its
//     clients come from outside); and the PgBouncer pods when
//     spec.proxy.pgBouncer is set (pgbouncer.h). Nothing admits the
//     exporter's metrics port (monitoring.h) but a policy of the user's for
//     Prometheus beside this one (policies add up; docs/monitoring.md).
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ACCESS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ACCESS_H_

#include <optional>
#include <string>

#include "src/controllers/common/operator_peer.h"
#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

// The operator's pods as a NetworkPolicy peer (operator_peer.h).
using controllers::OperatorPeer;

Json BuildRestApiSecret(const PostgresCluster& cluster, const std::string& password);

// The NetworkPolicy, or nullopt when spec.networkPolicy.enabled is false.
std::optional<Json> BuildNetworkPolicy(const PostgresCluster& cluster,
                                       const OperatorPeer& operator_peer);
// The repository host's NetworkPolicy (<cluster>-repo-host): its pgBackRest
// port admits the members only. nullopt without volume repositories or when
// spec.networkPolicy.enabled is false.
std::optional<Json> BuildRepoHostNetworkPolicy(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ACCESS_H_
