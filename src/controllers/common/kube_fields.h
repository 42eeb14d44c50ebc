// The one place where controller logic reads (or sets) the spec fields of the
// Kubernetes objects it observes and re-applies: StatefulSets, claims and
// their templates, pods. The builders write whole objects (the serialise
// layer); everything else goes through these accessors, so `"spec"` paths
// stay in the typed parse/serialise layer and here. Absent fields and fields
// of the wrong type read as absent; nothing throws.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_KUBE_FIELDS_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_KUBE_FIELDS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/time/time.h"

namespace quorum::controllers {

// StatefulSet: spec.volumeClaimTemplates (null when absent).
const nlohmann::json& ClaimTemplatesOf(const nlohmann::json& sts);
// StatefulSet: spec.volumeClaimTemplates := `templates`, or removed when
// `templates` is not a list.
void SetClaimTemplates(nlohmann::json& sts, const nlohmann::json& templates);
// StatefulSet: spec.replicas, or `absent` when unset or not an integer.
int StatefulSetReplicas(const nlohmann::json& sts, int absent);
// StatefulSet: status.updateRevision, the revision of its current template;
// "" before the StatefulSet controller has written it.
std::string StatefulSetUpdateRevision(const nlohmann::json& sts);
// StatefulSet: spec.updateStrategy.type ("" when unset).
std::string StatefulSetUpdateStrategy(const nlohmann::json& sts);
// StatefulSet: spec.selector.matchLabels (null when absent).
const nlohmann::json& StatefulSetSelector(const nlohmann::json& sts);

// PersistentVolumeClaim or claim template: its spec (null when absent).
const nlohmann::json& ClaimSpec(const nlohmann::json& claim);
// PersistentVolumeClaim or claim template: spec.resources.requests.storage
// as written (null when absent).
const nlohmann::json& StorageRequest(const nlohmann::json& claim);
// Sets spec.resources.requests.storage in `claim` (or in a patch of one).
void SetStorageRequest(nlohmann::json& claim, const nlohmann::json& storage);
// PersistentVolumeClaim: spec.storageClassName; "" when unset.
std::string StorageClassName(const nlohmann::json& pvc);

// Pod: spec.nodeName; "" before it is scheduled.
std::string PodNodeName(const nlohmann::json& pod);
// Pod: its Ready condition is True.
bool PodReady(const nlohmann::json& pod);
// Pod: not Ready, and a container of it is not running or started at or
// after the pod last became unready (RFC 3339 seconds): its process died and
// the kubelet is restarting it, as opposed to a readiness probe failing.
bool PodRestartingUnready(const nlohmann::json& pod);

// Any object: metadata.deletionTimestamp is set (its deletion has begun).
bool BeingDeleted(const nlohmann::json& obj);
// Any object: `now` - metadata.creationTimestamp; zero when absent or not
// RFC 3339.
absl::Duration Age(const nlohmann::json& obj, absl::Time now);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_KUBE_FIELDS_H_
