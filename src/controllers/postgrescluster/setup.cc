#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/reconciler.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

// SetupPostgresClusterController (reconciler.h): informers, indexes, watches.
runtime::Controller& SetupPostgresClusterController(runtime::Manager& manager,
                                                    PostgresClusterReconciler& reconciler,
                                                    int workers) {
  runtime::Cache& cache = manager.cache();
  runtime::SharedInformer& clusters = cache.Informer(kPostgresClusters);
  // The indexes decode without defaulting: references need no defaults, and
  // an object that does not decode references nothing until it is fixed.
  clusters.AddIndex(kSecretIndex, [](const Json& obj) {
    std::vector<std::string> keys;
    absl::StatusOr<PostgresCluster> c = api::DecodePostgresCluster(obj);
    if (!c.ok()) return keys;
    for (const std::string& s : ReferencedSecrets(*c)) keys.push_back(c->metadata.ns + "/" + s);
    return keys;
  });
  clusters.AddIndex(kEtcdClusterIndex, [](const Json& obj) {
    absl::StatusOr<PostgresCluster> c = api::DecodePostgresCluster(obj);
    if (!c.ok() || ReferencedEtcdCluster(*c).empty()) return std::vector<std::string>{};
    return std::vector<std::string>{c->metadata.ns + "/" + ReferencedEtcdCluster(*c)};
  });
  auto key_of = [](const Json& o) {
    return std::vector<std::string>{
        json_access::Str(json_access::At(o, {"metadata", "namespace"})) + "/" +
        json_access::Str(json_access::At(o, {"metadata", "name"}))};
  };
  auto by_cluster_label = [](const Json& o) {
    const std::string name =
        Str(At(o, {"metadata", "labels", std::string(api::kClusterLabel).c_str()}));
    if (name.empty()) return std::vector<runtime::Request>{};
    return std::vector<runtime::Request>{
        {json_access::Str(json_access::At(o, {"metadata", "namespace"})), name}};
  };
  runtime::Controller& c =
      manager.AddController("postgrescluster", reconciler, {.workers = workers});
  c.Watch(clusters, runtime::EnqueueRequestForObject(),
          {runtime::ResourceVersionChangedPredicate()});
  auto owner = runtime::EnqueueRequestForOwner(std::string(api::kPostgresGroup),
                                               std::string(api::kPostgresClusterKind));
  // The cache keeps only what the controllers read of StatefulSets, the
  // pooler's Deployment and pods (cache_scopes.h): other changes (counters,
  // Patroni's pod annotations, condition timestamps) do not reconcile.
  c.Watch(cache.Informer(kStatefulSets), owner, {runtime::ContentChangedPredicate()});
  c.Watch(cache.Informer(kDeployments), owner, {runtime::ContentChangedPredicate()});
  // A major upgrade's Job (upgrade_job.h): its end moves the upgrade on.
  c.Watch(cache.Informer(kube::kJobs), owner, {runtime::ResourceVersionChangedPredicate()});
  for (const auto& gvr :
       {kServices, kConfigMaps, kPdbs, kServiceAccounts, kRoles, kRoleBindings, kNetworkPolicies}) {
    c.Watch(cache.Informer(gvr), owner, {runtime::ResourceVersionChangedPredicate()});
  }
  // A referenced Secret or EtcdCluster that changes (or appears) reconciles
  // the clusters that use it; the cluster's own Secrets map by owner.
  c.Watch(cache.Informer(kSecrets),
          [owner, index = runtime::EnqueueRequestsFromIndex(clusters.store(), kSecretIndex,
                                                            key_of)](const Json& secret) {
            std::vector<runtime::Request> out = index(secret);
            for (runtime::Request& r : owner(secret)) out.push_back(std::move(r));
            return out;
          },
          {runtime::ResourceVersionChangedPredicate()});
  c.Watch(cache.Informer(kEtcdClusters),
          runtime::EnqueueRequestsFromIndex(clusters.store(), kEtcdClusterIndex, key_of),
          {runtime::ResourceVersionChangedPredicate()});
  // The kubernetes DCS's Endpoints or ConfigMaps (labelled like the pods;
  // dcs_objects.h): a new one or a new leader reconciles at once, renewals do
  // not (a non-controller owner keeps the ConfigMaps out of the owner watch).
  runtime::Predicate leader_changed;
  leader_changed.update = [](const Json& old_object, const Json& new_object) {
    return Str(At(old_object, {"metadata", "annotations", "leader"})) !=
           Str(At(new_object, {"metadata", "annotations", "leader"}));
  };
  c.Watch(cache.Informer(kEndpoints), by_cluster_label, {leader_changed});
  c.Watch(cache.Informer(kConfigMaps), by_cluster_label, {leader_changed});
  // The etcd DCS's leader keys: a watch on etcd wakes the cluster at once.
  reconciler.FollowDcsLeaders([&c](const runtime::Request& r) { c.queue().Add(r.Key()); });
  // Nodes: read to skip members on NotReady nodes (their pods' Ready
  // condition changes with the node, and that reconciles).
  cache.Informer(kNodes, /*cluster_scoped=*/true);
  // Member pods (owned by StatefulSets) map by their cluster label.
  c.Watch(cache.Informer(kPods), by_cluster_label, {runtime::ContentChangedPredicate()});
  return c;
}

void WatchScheduledBackups(runtime::Manager& manager, runtime::Controller& controller,
                           PostgresClusterReconciler& reconciler) {
  // Every backup of a cluster (scheduled or not) wakes it: its schedule and
  // status.backups follow them.
  controller.Watch(manager.cache().Informer(kPostgresBackups),
                   [](const Json& b) {
                     const std::string name = Str(At(b, {"spec", "clusterRef", "name"}));
                     if (name.empty()) return std::vector<runtime::Request>{};
                     return std::vector<runtime::Request>{
                         {json_access::Str(json_access::At(b, {"metadata", "namespace"})), name}};
                   },
                   {runtime::ResourceVersionChangedPredicate()});
  reconciler.EnableScheduledBackups();
}

}  // namespace quorum::postgrescluster
