#include "src/controllers/common/backup_reconciler.h"

#include <nlohmann/json.hpp>

#include "src/base/json_access.h"
#include "src/kube/resources.h"
#include "src/runtime/handler.h"

namespace quorum::controllers {
namespace {

using Json = nlohmann::json;

// "<ns>/<name>" of what a backup's spec.clusterRef names, and of a cluster.
std::vector<std::string> ClusterKeyOfBackup(const Json& backup) {
  const std::string ns = json_access::Str(json_access::At(backup, {"metadata", "namespace"}));
  const std::string cluster =
      backup.value("spec", Json::object()).value("clusterRef", Json::object()).value("name", "");
  return cluster.empty() ? std::vector<std::string>{}
                         : std::vector<std::string>{ns + "/" + cluster};
}

std::vector<std::string> ClusterKey(const Json& cluster) {
  return {json_access::Str(json_access::At(cluster, {"metadata", "namespace"})) + "/" +
          json_access::Str(json_access::At(cluster, {"metadata", "name"}))};
}

}  // namespace

runtime::Controller& SetupBackupController(runtime::Manager& manager,
                                           runtime::Reconciler& reconciler,
                                           const BackupKindInfo& info, int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& backups = cache.Informer(info.backups);
  for (const kube::GroupVersionResource& gvr : info.also_cached) cache.Informer(gvr);
  backups.AddIndex(info.cluster_index, ClusterKeyOfBackup);
  runtime::Controller& c = manager.AddController(info.controller, reconciler, {.workers = workers});
  c.Watch(backups, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(kube::kJobs),
          runtime::EnqueueRequestForOwner(info.backups.group, info.kind),
          {runtime::ResourceVersionChangedPredicate()});
  // A cluster that appears or becomes ready wakes the backups waiting for it.
  c.Watch(cache.Informer(info.clusters),
          runtime::EnqueueRequestsFromIndex(backups.store(), info.cluster_index, ClusterKey),
          {runtime::ResourceVersionChangedPredicate()});
  return c;
}

}  // namespace quorum::controllers
