#include "src/patroni/dynamic_config.h"

#include <algorithm>

namespace quorum::patroni {

using nlohmann::json;

json DynamicConfigPatch(const json& desired, const json& current) {
  json patch = json::object();
  if (!desired.is_object()) return patch;
  for (const auto& [key, want] : desired.items()) {
    const bool has = current.is_object() && current.contains(key);
    if (want.is_null()) {
      if (has) patch[key] = nullptr;
      continue;
    }
    if (want.is_object() && has && current[key].is_object()) {
      json inner = DynamicConfigPatch(want, current[key]);
      if (!inner.empty()) patch[key] = std::move(inner);
      continue;
    }
    // A new object is sent without its nulls (nothing to remove there).
    if (!has || current[key] != want) {
      patch[key] = want.is_object() ? DynamicConfigPatch(want, json::object()) : want;
      if (patch[key].is_object() && patch[key].empty() && !want.empty()) patch.erase(key);
    }
  }
  return patch;
}

namespace {

void CollectPaths(const json& patch, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, value] : patch.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && !value.empty()) {
      CollectPaths(value, path, out);
    } else {
      out.push_back(path);
    }
  }
}

}  // namespace

std::vector<std::string> PatchPaths(const json& patch) {
  std::vector<std::string> out;
  if (patch.is_object()) CollectPaths(patch, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quorum::patroni
