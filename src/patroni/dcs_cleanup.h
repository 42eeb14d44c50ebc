// Removing one Patroni cluster's state from an etcd DCS, for a
// PostgresCluster that is deleted: Patroni keeps everything of a cluster
// (leader, members, config, initialize, history, failover, sync, status)
// under "/<namespace>/<scope>/" (slashes collapsed, as LeaderKey in
// role_sync.h). Left behind, the "initialize" key makes a new cluster of the
// same name wait for a leader that never comes instead of bootstrapping.
//
// Thread-safety: as etcd::Client.
#ifndef QUORUM_SRC_PATRONI_DCS_CLEANUP_H_
#define QUORUM_SRC_PATRONI_DCS_CLEANUP_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/etcd/client.h"

namespace quorum::patroni {

// "/<key_namespace>/<scope>/" with runs of '/' collapsed; the trailing slash
// keeps scope "pg" from matching "pg2".
std::string ClusterKeyPrefix(std::string_view key_namespace, std::string_view scope);

// Deletes every key under ClusterKeyPrefix; returns how many there were (0
// when already clean). InvalidArgument for an empty scope. Errors: those of
// etcd::Client::DeletePrefix (Unavailable when etcd cannot be reached,
// PermissionDenied when the user may not write there).
absl::StatusOr<int64_t> RemoveClusterKeys(etcd::Client& etcd, std::string_view key_namespace,
                                          std::string_view scope);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_DCS_CLEANUP_H_
