// Cache transforms: what an informer keeps of an object (see ResourceScope in
// cache.h). Each drops what no controller reads, so the packed store holds
// less per object; StripManagedFields (informer.h) always runs first.
// Pure functions; thread-safe.
#ifndef QUORUM_SRC_RUNTIME_TRANSFORMS_H_
#define QUORUM_SRC_RUNTIME_TRANSFORMS_H_

#include "src/kube/client.h"

namespace quorum::runtime {

using kube::Json;

// A Pod as the controllers read it: metadata without annotations (Patroni's
// kubernetes DCS keeps a large status annotation there; nothing reads it
// from the cache), spec.nodeName only, and status.{phase, podIP, podIPs,
// conditions[].{type,status}, containerStatuses[].{name, ready,
// restartCount, state}}. A controller that starts reading another pod field
// must add it here.
void StripPod(Json& pod);

// A StatefulSet with only the status fields a controller reads: replicas,
// readyReplicas, updatedReplicas, observedGeneration, currentRevision and
// updateRevision (the PostgresCluster's status and rollout). The rest of the
// status (availableReplicas, currentReplicas, conditions, collisionCount)
// changes while pods start, and nothing reads it.
void StripStatefulSetStatus(Json& sts);

// Drops status: for owned objects whose status no controller reads
// (Services, PodDisruptionBudgets).
void DropStatus(Json& object);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_TRANSFORMS_H_
