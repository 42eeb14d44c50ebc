// Merging the user's podTemplate.spec over the pod spec Quorum generates
// (API.md): containers, initContainers and volumes merge by name; inside a
// container, env merges by name, volumeMounts by mountPath and ports by
// containerPort (so adding one entry does not drop Quorum's); every other
// scalar or object field the user sets overrides ours, and any other list
// the user sets replaces ours. Pure; thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_POD_MERGE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_POD_MERGE_H_

#include <nlohmann/json.hpp>

namespace quorum::etcdcluster {

nlohmann::json MergePodSpec(nlohmann::json ours, const nlohmann::json& user);
nlohmann::json MergeContainer(nlohmann::json ours, const nlohmann::json& user);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_POD_MERGE_H_
