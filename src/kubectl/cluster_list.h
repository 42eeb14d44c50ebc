// `kubectl quorum status` without a name: one row per EtcdCluster and
// PostgresCluster (kind, name, phase, members ready/desired, version, leader
// or primary, age), built purely from the typed clusters, and its text table
// and JSON list. The verdict of a list is degraded when any row is.
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_SRC_KUBECTL_CLUSTER_LIST_H_
#define QUORUM_SRC_KUBECTL_CLUSTER_LIST_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/etcdcluster_types.h"
#include "api/postgrescluster_types.h"
#include "src/kubectl/render_text.h"
#include "src/kubectl/status_view.h"

namespace quorum::kubectl {

struct ClusterRow {
  std::string kind;  // EtcdCluster | PostgresCluster
  std::string ns, name;
  std::string phase;  // PhaseOf (status_view.h)
  Health health = Health::kDegraded;
  int32_t ready = 0, desired = 0;  // members (PostgresCluster: over all instance sets)
  std::string version;             // etcd's lowest version; PostgreSQL's major; "" unknown
  std::string leader;              // etcd's leader or PostgreSQL's primary; "" none
  std::string created;             // RFC 3339
  bool operator==(const ClusterRow&) const = default;
};

ClusterRow BuildClusterRow(const api::EtcdCluster& cluster);
ClusterRow BuildClusterRow(const api::PostgresCluster& cluster);

// The rows of both kinds, sorted by namespace, kind and name.
std::vector<ClusterRow> BuildClusterRows(const std::vector<api::EtcdCluster>& etcd,
                                         const std::vector<api::PostgresCluster>& postgres);

// kHealthy when every row is (an empty list too).
Health ListHealth(const std::vector<ClusterRow>& rows);

// The table; with `all_namespaces` a NAMESPACE column first. `scope` names
// where was looked ("namespace demo", "any namespace") when there is no row.
std::string RenderListText(const std::vector<ClusterRow>& rows, bool all_namespaces,
                           const std::string& scope, const TextOptions& options);

// {"apiVersion": "kubectl-quorum/v1", "kind": "ClusterList", "items": [...]}.
nlohmann::json RenderListJson(const std::vector<ClusterRow>& rows);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_CLUSTER_LIST_H_
