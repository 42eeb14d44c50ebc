#include "src/kube/discovery.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "src/kube/errors.h"

namespace quorum::kube {

absl::StatusOr<std::vector<ApiResource>> ParseApiResourceList(const Json& doc) {
  if (!doc.is_object() || !doc.contains("groupVersion") || !doc["groupVersion"].is_string() ||
      !doc.contains("resources") || !doc["resources"].is_array()) {
    return absl::InternalError("malformed discovery document: not an APIResourceList");
  }
  const auto [group, version] = SplitApiVersion(doc["groupVersion"].get<std::string>());
  std::map<std::string, ApiResource> by_name;
  std::vector<std::pair<std::string, std::string>> subresources;
  for (const Json& r : doc["resources"]) {
    if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) {
      return absl::InternalError("malformed discovery document: resource without a name");
    }
    const std::string name = r["name"].get<std::string>();
    if (const size_t slash = name.find('/'); slash != std::string::npos) {
      subresources.emplace_back(name.substr(0, slash), name.substr(slash + 1));
      continue;
    }
    ApiResource res{.gvr = {group, version, name},
                    .kind = r.value("kind", ""),
                    .namespaced = r.value("namespaced", false)};
    if (r.contains("verbs") && r["verbs"].is_array()) {
      for (const Json& v : r["verbs"]) {
        if (v.is_string()) res.verbs.push_back(v.get<std::string>());
      }
    }
    by_name.emplace(name, std::move(res));
  }
  for (auto& [parent, sub] : subresources) {
    if (auto it = by_name.find(parent); it != by_name.end()) it->second.subresources.push_back(sub);
  }
  std::vector<ApiResource> out;
  for (auto& [name, res] : by_name) out.push_back(std::move(res));
  return out;
}

absl::StatusOr<std::vector<ApiResource>> RestMapper::Fetch(const std::string& group,
                                                           const std::string& version,
                                                           bool refresh) {
  const std::string key = ApiVersion(group, version);
  if (!refresh) {
    absl::MutexLock lock(&mu_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  absl::StatusOr<Json> doc = client_.GetPath(GroupVersionPath(group, version));
  if (!doc.ok()) {
    if (IsNotFound(doc.status())) {
      return absl::NotFoundError(absl::StrCat("no API group version \"", key, "\" on the server"));
    }
    return doc.status();
  }
  absl::StatusOr<std::vector<ApiResource>> parsed = ParseApiResourceList(*doc);
  if (!parsed.ok()) return parsed.status();
  absl::MutexLock lock(&mu_);
  cache_[key] = *parsed;
  return parsed;
}

absl::StatusOr<ApiResource> RestMapper::ResourceFor(const GroupVersionKind& gvk) {
  for (bool refresh : {false, true}) {
    absl::StatusOr<std::vector<ApiResource>> list = Fetch(gvk.group, gvk.version, refresh);
    if (!list.ok()) {
      if (IsNotFound(list.status()) && !refresh) continue;
      return list.status();
    }
    for (const ApiResource& r : *list) {
      if (r.kind == gvk.kind) return r;
    }
  }
  return absl::NotFoundError(absl::StrCat("no resource for kind \"", gvk.kind, "\" in \"",
                                          ApiVersion(gvk.group, gvk.version), "\""));
}

absl::StatusOr<ApiResource> RestMapper::ResourceFor(std::string_view api_version,
                                                    std::string_view kind) {
  auto [group, version] = SplitApiVersion(api_version);
  return ResourceFor(GroupVersionKind{group, version, std::string(kind)});
}

void RestMapper::Invalidate() {
  absl::MutexLock lock(&mu_);
  cache_.clear();
}

}  // namespace quorum::kube
