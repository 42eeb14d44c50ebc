// Read-only access to nested JSON fields that never throws: At(pod, {"status",
// "podIP"}) is the value or a null, Str(value) the string or "".
// For the Kubernetes objects the PostgresCluster controller observes (pods,
// StatefulSets, Secrets) only: the cluster itself is read through its typed
// form (api/postgrescluster_types.h), never through this. Pure; thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_JSON_PATH_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_JSON_PATH_H_

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace quorum::postgrescluster {

inline const nlohmann::json& At(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json kNull;
  const nlohmann::json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

inline std::string Str(const nlohmann::json& j) {
  return j.is_string() ? j.get<std::string>() : "";
}

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_JSON_PATH_H_
