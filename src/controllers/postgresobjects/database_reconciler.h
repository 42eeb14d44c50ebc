// PostgresDatabaseReconciler: one PostgresDatabase to one PostgreSQL
// database (reconciler.h does the reconcile; this is the database's part):
// apply.h ApplyDatabase, and DropDatabase (sessions terminated first) with
// reclaimPolicy delete. A grant naming a role that does not exist yet fails
// in status and is retried with backoff, and at once when a PostgresRole of
// the same cluster changes.
// Thread-safety: Reconcile may run concurrently for different databases.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_DATABASE_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_DATABASE_RECONCILER_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "api/postgresdatabase_types.h"
#include "src/controllers/postgresobjects/reconciler.h"
#include "src/runtime/manager.h"

namespace quorum::postgresobjects {

class PostgresDatabaseReconciler : public SqlObjectReconciler {
 public:
  PostgresDatabaseReconciler(kube::Client& client, runtime::Cache& cache,
                             runtime::EventRecorder& recorder, Clock& clock = RealClock());

 private:
  absl::StatusOr<ObjectView> Parse(const nlohmann::json& stored) const override;
  std::string Conflict(const nlohmann::json& stored,
                       const api::PostgresCluster& cluster) const override;
  std::string Inputs(const nlohmann::json& stored) const override;
  absl::Status Apply(const nlohmann::json& stored, const api::PostgresCluster& cluster,
                     const ClusterTarget& target, api::PostgresObjectStatus& status) override;
  absl::Status Drop(const nlohmann::json& stored, const ObjectView& view,
                    const ClusterTarget& target) override;
  void Forget(const std::string& key) override;

  // "<ns>/<name>" -> (uid, the grants this process last made). Revoking
  // reads status.grants, which the cache may not hold yet right after the
  // status write (an edit that lands meanwhile is reconciled with the older
  // status): what this process granted is revoked as well.
  absl::Mutex mu_;
  std::map<std::string, std::pair<std::string, std::vector<api::AppliedGrant>>> granted_
      ABSL_GUARDED_BY(mu_);
};

// Registers the informers, the controller and its watches: the databases,
// their clusters and the clusters' PostgresRoles (by kClusterIndex).
runtime::Controller& SetupPostgresDatabaseController(runtime::Manager& manager,
                                                     PostgresDatabaseReconciler& reconciler,
                                                     int workers);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_DATABASE_RECONCILER_H_
