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
    const bool has_object = has && current[key].is_object();
    if (want.is_object()) {
      // Compared key by key; an object that is new (or replaces a scalar) is
      // sent without its nulls: there is nothing to remove in it.
      json inner = DynamicConfigPatch(want, has_object ? current[key] : json::object());
      if (!inner.empty() || (want.empty() && !has_object)) patch[key] = std::move(inner);
    } else if (!has || current[key] != want) {
      patch[key] = want;
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
