#include "src/controllers/postgresobjects/watches.h"

#include <nlohmann/json.hpp>

#include "src/base/json_access.h"
#include "src/controllers/common/resources.h"
#include "src/controllers/postgresobjects/reconciler.h"
#include "src/kube/resources.h"
#include "src/runtime/handler.h"

namespace quorum::postgresobjects {

using json_access::At;
using json_access::Str;

std::vector<std::string> ClusterKeyOfObject(const nlohmann::json& object) {
  const std::string cluster = Str(At(object, {"spec", "cluster"}));
  if (cluster.empty()) return {};
  return {Str(At(object, {"metadata", "namespace"})) + "/" + cluster};
}

std::vector<std::string> ClusterKeyOfCluster(const nlohmann::json& cluster) {
  return {Str(At(cluster, {"metadata", "namespace"})) + "/" +
          Str(At(cluster, {"metadata", "name"}))};
}

runtime::Controller& SetupSqlObjectController(runtime::Manager& manager,
                                              runtime::Reconciler& reconciler,
                                              const kube::GroupVersionResource& gvr,
                                              const kube::GroupVersionResource& peer,
                                              const std::string& name, int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& objects = cache.Informer(gvr);
  objects.AddIndex(kClusterIndex, ClusterKeyOfObject);
  cache.Informer(kube::kPods);
  cache.Informer(kube::kSecrets);
  runtime::Controller& c = manager.AddController(name, reconciler, {.workers = workers});
  c.Watch(objects, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  // A cluster that appears, becomes ready or fails over wakes its objects.
  c.Watch(cache.Informer(controllers::kPostgresClusters),
          runtime::EnqueueRequestsFromIndex(objects.store(), kClusterIndex, ClusterKeyOfCluster),
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(peer),
          runtime::EnqueueRequestsFromIndex(objects.store(), kClusterIndex, ClusterKeyOfObject),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::postgresobjects
