#include "src/kubectl/pod_info.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

const Json* Field(const Json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::string StringAt(const Json& o, const char* key) {
  const Json* v = Field(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

const Json& ObjectAt(const Json& o, const char* key) {
  static const Json kEmpty = Json::object();
  const Json* v = Field(o, key);
  return v != nullptr && v->is_object() ? *v : kEmpty;
}

bool ReadyCondition(const Json& status) {
  const Json* conditions = Field(status, "conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const Json& c : *conditions) {
    if (StringAt(c, "type") == "Ready") return StringAt(c, "status") == "True";
  }
  return false;
}

int32_t Restarts(const Json& status) {
  const Json* list = Field(status, "containerStatuses");
  if (list == nullptr || !list->is_array()) return 0;
  int32_t n = 0;
  for (const Json& c : *list) {
    const Json* r = Field(c, "restartCount");
    if (r != nullptr && r->is_number_integer()) n += r->get<int32_t>();
  }
  return n;
}

}  // namespace

PodInfo ParsePod(const Json& pod) {
  PodInfo out;
  const Json& meta = ObjectAt(pod, "metadata");
  const Json& status = ObjectAt(pod, "status");
  out.name = StringAt(meta, "name");
  out.uid = StringAt(meta, "uid");
  for (const auto& [k, v] : ObjectAt(meta, "labels").items()) {
    if (v.is_string()) out.labels[k] = v.get<std::string>();
  }
  for (const auto& [k, v] : ObjectAt(meta, "annotations").items()) {
    if (v.is_string()) out.annotations[k] = v.get<std::string>();
  }
  out.deleting = Field(meta, "deletionTimestamp") != nullptr;
  out.phase = StringAt(status, "phase");
  out.ready = ReadyCondition(status);
  out.restarts = Restarts(status);
  out.node = StringAt(ObjectAt(pod, "spec"), "nodeName");
  return out;
}

std::vector<PodInfo> ParsePodList(const Json& list) {
  std::vector<PodInfo> out;
  const Json* items = Field(list, "items");
  if (items != nullptr && items->is_array()) {
    for (const Json& pod : *items) out.push_back(ParsePod(pod));
  }
  std::sort(out.begin(), out.end(),
            [](const PodInfo& a, const PodInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace quorum::kubectl
