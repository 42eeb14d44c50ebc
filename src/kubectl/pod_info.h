// PodInfo: the few facts of a member pod that `kubectl quorum status` shows
// (phase, readiness, restarts, labels), read once from the pod's JSON.
//
// Thread-safety: value type and pure functions.
#ifndef QUORUM_SRC_KUBECTL_POD_INFO_H_
#define QUORUM_SRC_KUBECTL_POD_INFO_H_

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace quorum::kubectl {

struct PodInfo {
  std::string name;
  std::string uid;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string phase;     // status.phase: Pending, Running, ...; "" unknown
  bool ready = false;    // condition Ready is True
  int32_t restarts = 0;  // summed over the containers
  bool deleting = false;
  std::string node;  // spec.nodeName; "" unscheduled
};

// Reads a v1 Pod. Fields of the wrong type read as absent: a pod is shown,
// never refused.
PodInfo ParsePod(const nlohmann::json& pod);

// Every item of a v1 PodList, sorted by name.
std::vector<PodInfo> ParsePodList(const nlohmann::json& list);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_POD_INFO_H_
