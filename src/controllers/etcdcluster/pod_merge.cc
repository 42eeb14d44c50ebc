#include "src/controllers/etcdcluster/pod_merge.h"

#include <functional>
#include <string>

namespace quorum::etcdcluster {
namespace {

using Json = nlohmann::json;
using Merge = std::function<Json(Json, const Json&)>;

Json Overlay(Json ours, const Json& user) {
  if (!user.is_object()) return ours;
  for (auto it = user.begin(); it != user.end(); ++it) ours[it.key()] = it.value();
  return ours;
}

// Merges two lists of objects keyed by `key`: entries of `user` replace or
// (through `merge`) update ours with the same key, new ones are appended in
// the user's order.
Json MergeListByKey(Json ours, const Json& user, const char* key, const Merge& merge) {
  if (!user.is_array()) return ours;
  if (!ours.is_array()) ours = Json::array();
  for (const Json& u : user) {
    if (!u.is_object() || !u.contains(key)) {
      ours.push_back(u);
      continue;
    }
    bool found = false;
    for (Json& o : ours) {
      if (o.is_object() && o.contains(key) && o[key] == u[key]) {
        o = merge(std::move(o), u);
        found = true;
        break;
      }
    }
    if (!found) ours.push_back(u);
  }
  return ours;
}

}  // namespace

Json MergeContainer(Json ours, const Json& user) {
  if (!user.is_object()) return ours;
  for (auto it = user.begin(); it != user.end(); ++it) {
    const std::string& k = it.key();
    if (k == "env") {
      ours[k] = MergeListByKey(ours.value(k, Json::array()), *it, "name",
                               [](Json, const Json& u) { return u; });
    } else if (k == "volumeMounts") {
      ours[k] = MergeListByKey(ours.value(k, Json::array()), *it, "mountPath",
                               [](Json, const Json& u) { return u; });
    } else if (k == "ports") {
      ours[k] = MergeListByKey(ours.value(k, Json::array()), *it, "containerPort", Overlay);
    } else if (it->is_object() && ours.contains(k) && ours[k].is_object()) {
      ours[k] = Overlay(ours[k], *it);  // e.g. resources, securityContext, probes
    } else {
      ours[k] = *it;
    }
  }
  return ours;
}

Json MergePodSpec(Json ours, const Json& user) {
  if (!user.is_object()) return ours;
  for (auto it = user.begin(); it != user.end(); ++it) {
    const std::string& k = it.key();
    if (k == "containers" || k == "initContainers") {
      ours[k] = MergeListByKey(ours.value(k, Json::array()), *it, "name", MergeContainer);
    } else if (k == "volumes") {
      ours[k] = MergeListByKey(ours.value(k, Json::array()), *it, "name",
                               [](Json, const Json& u) { return u; });
    } else if (it->is_object() && ours.contains(k) && ours[k].is_object()) {
      ours[k] = Overlay(ours[k], *it);
    } else {
      ours[k] = *it;
    }
  }
  return ours;
}

}  // namespace quorum::etcdcluster
