// EtcdClusterReconciler: makes one EtcdCluster's objects and membership
// match its spec. Each reconcile, level-triggered and safe to repeat or to
// crash in:
//   1. read the cluster and everything it owns from the cache;
//   2. observe the etcd members (member list, per-member status) when pods run;
//   3. ask the planner (src/etcd/planner.h) for the next single safe step;
//   4. apply the owned objects (Services, state ConfigMap, StatefulSet, PDB)
//      with server-side apply — only those that differ from the cache;
//   5. take the step (with an Event), then write status last, only when it
//      changed.
// An already-converged cluster costs zero API writes.
// Thread-safety: Reconcile may run concurrently for different clusters.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_

#include "src/etcd/client.h"
#include "src/etcd/planner.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/manager.h"
#include "src/runtime/reconciler.h"

namespace quorum::etcdcluster {

inline const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
inline const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
inline const kube::GroupVersionResource kServices{"", "v1", "services"};
inline const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const kube::GroupVersionResource kPdbs{"policy", "v1", "poddisruptionbudgets"};

// How the reconciler reaches etcd; tests substitute endpoints.
using EtcdClientFactory =
    std::function<absl::StatusOr<std::unique_ptr<etcd::Client>>(etcd::ClientConfig)>;

class EtcdClusterReconciler : public runtime::Reconciler {
 public:
  EtcdClusterReconciler(kube::Client& client, runtime::Cache& cache,
                        runtime::EventRecorder& recorder, EtcdClientFactory factory = nullptr);
  absl::StatusOr<runtime::Result> Reconcile(const runtime::Request& request) override;

 private:
  kube::Client& client_;
  runtime::Cache& cache_;
  runtime::EventRecorder& recorder_;
  EtcdClientFactory factory_;
};

// Registers the informers, the controller and its watches on `manager`.
// `reconciler` must outlive the manager's run.
runtime::Controller& SetupEtcdClusterController(runtime::Manager& manager,
                                                EtcdClusterReconciler& reconciler, int workers);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RECONCILER_H_
