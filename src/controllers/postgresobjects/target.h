// Where a PostgresRole or PostgresDatabase is applied: the primary of its
// PostgresCluster, as the superuser over TLS (verify-full against the
// cluster's CA, at the pod IP), all read from the operator's cache.
//
// Thread-safety: pure functions over the (thread-safe) cache.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_TARGET_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/pg_connection.h"
#include "src/runtime/cache.h"

namespace quorum::postgresobjects {

struct ClusterTarget {
  postgrescluster::PostgresTarget target;
  std::string primary;  // the primary's pod name
  std::string ca_pem;
  // What changes when the target does (primary, its IP, the superuser's
  // Secret, the CA): a key for "already applied here".
  std::string fingerprint;
};

// Errors: Unavailable (with why: no ready primary, a Secret missing) when
// the cluster cannot take SQL now.
absl::StatusOr<ClusterTarget> PrimaryTarget(const runtime::Cache& cache,
                                            const api::PostgresCluster& cluster);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_TARGET_H_
