#include "src/runtime/apply.h"

namespace quorum::runtime {

bool IsSubset(const Json& desired, const Json& actual) {
  if (desired.is_object()) {
    if (!actual.is_object()) return false;
    for (auto it = desired.begin(); it != desired.end(); ++it) {
      auto found = actual.find(it.key());
      if (found == actual.end() || !IsSubset(*it, *found)) return false;
    }
    return true;
  }
  if (desired.is_array()) {
    if (!actual.is_array() || actual.size() != desired.size()) return false;
    for (size_t i = 0; i < desired.size(); ++i) {
      if (!IsSubset(desired[i], actual[i])) return false;
    }
    return true;
  }
  if (desired.is_number() && actual.is_number())
    return desired.get<double>() == actual.get<double>();
  return desired == actual;
}

absl::StatusOr<bool> ApplyIfChanged(kube::Client& client, const kube::GroupVersionResource& gvr,
                                    const Json& desired, const ObjectPtr& cached,
                                    const std::string& field_manager) {
  if (cached != nullptr) {
    Json want = desired;
    want.erase("apiVersion");
    want.erase("kind");
    if (IsSubset(want, *cached)) return false;
  }
  const std::string ns = desired["metadata"].value("namespace", "");
  absl::StatusOr<Json> applied =
      client.Apply(gvr, ns, desired, {.field_manager = field_manager, .force = true});
  if (!applied.ok()) return applied.status();
  return true;
}

}  // namespace quorum::runtime
