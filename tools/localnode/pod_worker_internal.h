// Internal to tools/localnode: what the files of PodWorker (pod_worker.cc,
// pod_worker_containers.cc, pod_worker_probes.cc, pod_worker_status.cc)
// share: the resources it reads and writes and small null-safe JSON reads.
//
// Thread-safety: constants and pure functions.
#ifndef QUORUM_TOOLS_LOCALNODE_POD_WORKER_INTERNAL_H_
#define QUORUM_TOOLS_LOCALNODE_POD_WORKER_INTERNAL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "src/kube/resource.h"

namespace quorum::localnode::pod_worker_internal {

using Json = nlohmann::json;

inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kServices{"", "v1", "services"};
inline const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

// How often the worker looks at its containers, and the longest restart
// backoff.
inline constexpr absl::Duration kTick = absl::Milliseconds(200);
inline constexpr absl::Duration kMaxBackoff = absl::Seconds(20);

inline std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

inline std::string Time(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

inline int IntOr(const Json& j, const char* key, int fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

inline std::optional<int64_t> OptInt(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it != j.end() && it->is_number_integer()) return it->get<int64_t>();
  return std::nullopt;
}

}  // namespace quorum::localnode::pod_worker_internal

#endif  // QUORUM_TOOLS_LOCALNODE_POD_WORKER_INTERNAL_H_
