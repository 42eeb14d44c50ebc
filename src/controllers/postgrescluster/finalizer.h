// The PostgresCluster finalizer: on delete, Patroni's keys of the cluster are
// removed from its etcd DCS (patroni::RemoveClusterKeys), or a new cluster of
// the same name would find the old "initialize" key and never bootstrap; with
// clusterRef and etcd auth, the pods' own etcd user and role go next
// (etcd_user.h). The operator connects with its own credentials.
//
//   * A cluster with an etcd DCS gets the finalizer (one patch, once); one
//     without loses it.
//   * Deleting: first the members stop. The operator deletes the cluster's
//     StatefulSets (the garbage collector would only after the finalizer is
//     gone) and waits until no member pod is left: a Patroni still running
//     writes its member, leader and initialize keys back right after they are
//     removed (seen on the real node: the recreated cluster then waited for a
//     leader forever). Then the keys are removed, then the finalizer. Skipped (finalizer
//     removed at once) when the DCS is an EtcdCluster that is gone or being
//     deleted: its keys go with it, and a namespace deletion must not hang.
//   * When etcd cannot be reached or refuses, a Warning event
//     (DCSCleanupFailed) says why and how to delete without cleaning up, and
//     the reconciler retries with backoff; after kDcsCleanupDeadline it gives
//     up, says so (DCSCleanupAbandoned, naming the keys left) and lets the
//     object go, so a delete never hangs forever.
//
// PlanFinalizer is pure; the rest acts through the API server and etcd.
// Thread-safety: safe for different clusters concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_FINALIZER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_FINALIZER_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgrescluster {

inline constexpr char kDcsFinalizer[] = "postgres.quorum.dev/dcs-keys";
inline constexpr absl::Duration kDcsCleanupDeadline = absl::Minutes(10);

struct FinalizerInput {
  bool uses_etcd = false;
  bool has_finalizer = false;
  bool deleting = false;
  bool dcs_owner_gone = false;  // clusterRef names an EtcdCluster that is gone or deleting
  int member_pods = 0;          // the cluster's pods that still exist (any phase)
  absl::Duration since_deletion;
};

enum class FinalizerStep {
  kNone,
  kAdd,          // add the finalizer
  kStopMembers,  // delete the StatefulSets; wait until no member pod is left
  kClean,        // remove the keys, then the finalizer
  kRemove,       // remove the finalizer without cleaning (nothing to clean, or given up)
  kGiveUp,       // as kRemove, after the deadline: warn that keys are left
};

FinalizerStep PlanFinalizer(const FinalizerInput& in);

// Removes Patroni's keys of `cluster` (patroni::RemoveClusterKeys) from its
// etcd DCS with the operator's own credentials: the finalizer's cleanup, and
// an in-place restore's (restore.h).
absl::Status RemovePatroniEtcdKeys(const runtime::Cache& cache, const PostgresCluster& cluster,
                                   const DcsResolution& dcs);

// Acts on a deleting cluster (or adds/removes the finalizer on a live one).
// Returns how long to wait before trying the cleanup again (`retry()`, a
// capped backoff); zero when done. `now` measures the time since the
// deletion against kDcsCleanupDeadline.
// `cluster` is parsed (defaults applied: the key namespace, the scope),
// `stored` as read.
absl::StatusOr<absl::Duration> ReconcileFinalizer(kube::Client& client, const runtime::Cache& cache,
                                                  runtime::EventRecorder& recorder,
                                                  const Json& stored,
                                                  const PostgresCluster& cluster, absl::Time now,
                                                  const std::function<absl::Duration()>& retry);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_FINALIZER_H_
