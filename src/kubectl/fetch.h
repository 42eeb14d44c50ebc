// Reads what `kubectl quorum status` shows of one cluster from the API: the
// EtcdCluster or PostgresCluster, its member pods and the backup objects of
// its namespace, each parsed once into the typed API structs. The only I/O
// of the status command; everything after it is pure (status_view.h).
//
// Thread-safety: as kube::Client (may be called concurrently).
#ifndef QUORUM_SRC_KUBECTL_FETCH_H_
#define QUORUM_SRC_KUBECTL_FETCH_H_

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/pod_info.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct EtcdInputs {
  api::EtcdCluster cluster;
  std::vector<PodInfo> pods;
  std::vector<api::EtcdBackup> backups;
  std::string backups_unreadable;  // "forbidden: RESOURCE" when RBAC refused the list
};

struct PostgresInputs {
  api::PostgresCluster cluster;
  std::vector<PodInfo> pods;
  std::vector<api::PostgresBackup> backups;
  std::string backups_unreadable;  // as EtcdInputs
};

using ClusterInputs = std::variant<EtcdInputs, PostgresInputs>;

// Reads `target` in namespace `ns`. A kind whose CRD is not installed reads
// as absent; backup objects that do not parse are skipped (they do not make
// a cluster's status unreadable), and a backup list the API forbids (403)
// is recorded in `backups_unreadable` instead of failing the read.
// Errors: NotFound when no cluster of that name (and kind) exists, the
// message naming what was looked for; InvalidArgument when a bare NAME is
// both an EtcdCluster and a PostgresCluster; DataLoss when the stored cluster
// does not decode; any other code as the API answered (kube/errors.h).
absl::StatusOr<ClusterInputs> FetchCluster(kube::Client& client, const std::string& ns,
                                           const Target& target);

// The cluster `target` names in `ns`, as stored: its kind (never kAny) and
// object. Errors: as FetchCluster, without DataLoss (nothing is decoded).
struct FoundCluster {
  Kind kind;
  nlohmann::json object;
};
absl::StatusOr<FoundCluster> FindCluster(kube::Client& client, const std::string& ns,
                                         const Target& target);

struct ClusterLists {
  std::vector<api::EtcdCluster> etcd;
  std::vector<api::PostgresCluster> postgres;
};

// Every EtcdCluster and PostgresCluster of `ns` ("" means every namespace).
// A kind whose CRD is not installed lists empty; an object that does not
// decode is skipped. Errors: as the API answered (kube/errors.h).
absl::StatusOr<ClusterLists> FetchClusters(kube::Client& client, const std::string& ns);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_FETCH_H_
