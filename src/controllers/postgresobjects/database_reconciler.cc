#include "src/controllers/postgresobjects/database_reconciler.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/controllers/common/resources.h"
#include "src/controllers/postgresobjects/apply.h"
#include "src/controllers/postgresobjects/sql_plan.h"
#include "src/controllers/postgresobjects/watches.h"

namespace quorum::postgresobjects {

PostgresDatabaseReconciler::PostgresDatabaseReconciler(kube::Client& client, runtime::Cache& cache,
                                                       runtime::EventRecorder& recorder,
                                                       Clock& clock)
    : SqlObjectReconciler(client, cache, recorder, clock, controllers::kPostgresDatabases,
                          std::string(api::kPostgresDatabaseKind)) {}

absl::StatusOr<ObjectView> PostgresDatabaseReconciler::Parse(const nlohmann::json& stored) const {
  absl::StatusOr<api::PostgresDatabase> db = api::ParsePostgresDatabase(stored);
  if (!db.ok()) return db.status();
  return ObjectView{.metadata = db->metadata,
                    .cluster = db->spec.cluster,
                    .sql_name = db->spec.name,
                    .drop_on_delete = db->spec.reclaim_policy == api::kReclaimDelete,
                    .status = db->status};
}

std::string PostgresDatabaseReconciler::Conflict(const nlohmann::json&,
                                                 const api::PostgresCluster&) const {
  return "";
}

std::string PostgresDatabaseReconciler::Inputs(const nlohmann::json&) const { return ""; }

absl::Status PostgresDatabaseReconciler::Apply(const nlohmann::json& stored,
                                               const api::PostgresCluster&,
                                               const ClusterTarget& target,
                                               api::PostgresObjectStatus& status) {
  absl::StatusOr<api::PostgresDatabase> db = api::ParsePostgresDatabase(stored);
  if (!db.ok()) return db.status();
  const std::string key = db->metadata.ns + "/" + db->metadata.name;
  std::vector<api::AppliedGrant> previous = status.grants;
  {
    absl::MutexLock lock(&mu_);
    auto it = granted_.find(key);
    if (it != granted_.end() && it->second.first == db->metadata.uid) {
      for (const api::AppliedGrant& g : it->second.second) {
        if (std::find(previous.begin(), previous.end(), g) == previous.end()) previous.push_back(g);
      }
    }
  }
  absl::Status s = ApplyDatabase(target.target, db->spec, previous);
  if (!s.ok()) return s;
  status.grants = AppliedGrants(db->spec.grants);  // what to revoke from next time
  absl::MutexLock lock(&mu_);
  granted_[key] = {db->metadata.uid, status.grants};
  return s;
}

void PostgresDatabaseReconciler::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  granted_.erase(key);
}

absl::Status PostgresDatabaseReconciler::Drop(const nlohmann::json&, const ObjectView& view,
                                              const ClusterTarget& target) {
  return DropDatabase(target.target, view.sql_name);
}

runtime::Controller& SetupPostgresDatabaseController(runtime::Manager& manager,
                                                     PostgresDatabaseReconciler& reconciler,
                                                     int workers) {
  manager.cache().Informer(controllers::kPostgresRoles).AddIndex(kClusterIndex, ClusterKeyOfObject);
  return SetupSqlObjectController(manager, reconciler, controllers::kPostgresDatabases,
                                  controllers::kPostgresRoles, "postgresdatabase", workers);
}

}  // namespace quorum::postgresobjects
