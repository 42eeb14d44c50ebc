#include "src/runtime/transforms.h"

#include <initializer_list>
#include <nlohmann/json.hpp>

namespace quorum::runtime {
namespace {

// Keeps only `keys` of object `j` (a no-op for a non-object).
void KeepOnly(Json& j, std::initializer_list<const char*> keys) {
  if (!j.is_object()) return;
  Json kept = Json::object();
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it != j.end()) kept[k] = std::move(*it);
  }
  j = std::move(kept);
}

}  // namespace

void StripPod(Json& pod) {
  if (!pod.is_object()) return;
  if (auto meta = pod.find("metadata"); meta != pod.end() && meta->is_object()) {
    meta->erase("annotations");
    meta->erase("managedFields");
    meta->erase("generateName");
  }
  if (auto spec = pod.find("spec"); spec != pod.end()) KeepOnly(*spec, {"nodeName"});
  if (auto status = pod.find("status"); status != pod.end() && status->is_object()) {
    KeepOnly(*status, {"phase", "podIP", "podIPs", "conditions", "containerStatuses"});
    if (auto c = status->find("conditions"); c != status->end() && c->is_array()) {
      for (Json& cond : *c) KeepOnly(cond, {"type", "status"});
    }
    if (auto c = status->find("containerStatuses"); c != status->end() && c->is_array()) {
      for (Json& cs : *c) KeepOnly(cs, {"name", "ready", "restartCount", "state"});
    }
  }
}

void StripStatefulSetStatus(Json& sts) {
  if (!sts.is_object()) return;
  if (auto status = sts.find("status"); status != sts.end()) {
    KeepOnly(*status, {"replicas", "readyReplicas", "updatedReplicas", "observedGeneration",
                       "currentRevision", "updateRevision"});
  }
}

void DropStatus(Json& object) {
  if (object.is_object()) object.erase("status");
}

}  // namespace quorum::runtime
