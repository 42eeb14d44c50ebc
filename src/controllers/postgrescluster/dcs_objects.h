// Which Kubernetes objects a PostgresCluster's Patroni keeps its kubernetes
// DCS in. Patroni offers two (kubernetes.use_endpoints): Endpoints — the
// leader lock on the primary Service's own Endpoints `<cluster>`, which
// Patroni also points at the primary, plus `<cluster>-config`, `-failover`,
// `-sync` — or ConfigMaps `<cluster>-leader`, `-config`, `-failover`, `-sync`,
// with the primary Service selecting the pod Patroni labels primary.
//
// Endpoints are deprecated since Kubernetes 1.33, so clusters get ConfigMaps;
// clusters made by an operator before this one keep Endpoints, since Patroni
// reads use_endpoints only when it starts (a reload keeps the old kind) and
// members on different kinds would each see a different leader lock: a
// change restarts every member at once (docs/operations.md). The choice is
// recorded in status.patroni.dcsObjects at the first reconcile that sees the
// cluster (PlanDcsObjects), and every later decision reads it from there.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_OBJECTS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_OBJECTS_H_

#include <optional>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

// What a cluster shows before status.patroni.dcsObjects is recorded.
struct DcsObjectsEvidence {
  // patroni.yaml of the cluster's own ConfigMap (Names::config_map), as the
  // running members were given it; "" when there is none.
  std::string patroni_yaml;
  bool has_statefulset = false;  // any of the cluster's member StatefulSets exists
  bool has_member_pods = false;  // any member pod exists (terminating ones too)
};

// The value status.patroni.dcsObjects should hold: "" with the etcd DCS; the
// recorded value when there is one — unless member pods exist and were given
// the other kind (the kubernetes section of patroni.yaml: use_endpoints false
// → ConfigMaps, true → Endpoints): then what they run, so a changed record
// (the move of docs/operations.md) takes effect only once every member is
// stopped. Unrecorded: what the members were given; otherwise Endpoints for a
// cluster that already ran (a StatefulSet, or a status written by an
// operator) and ConfigMaps for a new one.
std::string PlanDcsObjects(const PostgresCluster& cluster, const DcsObjectsEvidence& evidence);

// With the kubernetes DCS: whether Patroni uses ConfigMaps (recorded so) or
// Endpoints (recorded so, or not recorded: the kind every earlier cluster
// had). Both false with the etcd DCS.
bool UsesConfigMaps(const PostgresCluster& cluster);
bool UsesEndpoints(const PostgresCluster& cluster);

// The object (of the kind in use) whose `leader` annotation is Patroni's
// leader lock: `<cluster>-leader` (ConfigMaps) or `<cluster>` (Endpoints).
std::string LeaderObjectName(const PostgresCluster& cluster);

// Every object Patroni keeps its state in, of the kind in use (clearing them
// makes Patroni initialise the DCS again); empty with the etcd DCS.
std::vector<std::string> PatroniObjectNames(const PostgresCluster& cluster);

// Patroni makes its ConfigMaps without an owner, so they would outlive the
// cluster (and a cluster made again under the same name would find the old
// one's `initialize` mark and never bootstrap). The merge patch that adds the
// cluster as a non-controller owner of `object` (garbage collection deletes
// it with the cluster; the owner watch, which follows controllers only, does
// not reconcile on each renewal), keeping other owners; nullopt when the
// cluster already owns it or does not use ConfigMaps. Patroni's own patches
// name annotations and labels only, so the reference stays. The patch moves
// the object's resourceVersion once: a leader renewal racing it gets a
// conflict, on which Patroni reads the object again and retries (as with the
// operator's release of a crash-looping leader's lock).
std::optional<Json> PatroniObjectOwnerPatch(const PostgresCluster& cluster, const Json& object);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_OBJECTS_H_
