#include "src/runtime/apply.h"

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"

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

namespace {

// IsSubset(desired without apiVersion and kind, cached), without copying
// `desired` (a StatefulSet is the largest object a reconcile builds).
bool CachedHolds(const Json& desired, const Json& cached) {
  if (!desired.is_object() || !cached.is_object()) return false;
  for (auto it = desired.begin(); it != desired.end(); ++it) {
    if (it.key() == "apiVersion" || it.key() == "kind") continue;
    auto found = cached.find(it.key());
    if (found == cached.end() || !IsSubset(*it, *found)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ApplyIfChanged(kube::Client& client, const kube::GroupVersionResource& gvr,
                                    const Json& desired, const ObjectPtr& cached,
                                    const std::string& field_manager) {
  if (cached != nullptr && CachedHolds(desired, *cached)) return false;
  const std::string ns = json_access::Str(json_access::At(desired, {"metadata", "namespace"}));
  absl::StatusOr<Json> applied = client.Apply(
      gvr, ns, desired, {.field_manager = field_manager, .force = true, .discard_response = true});
  if (IsRefusedWrite(applied.status())) {
    return absl::Status(
        applied.status().code(),
        absl::StrCat("the API server refused ", desired.value("kind", gvr.resource), " ",
                     json_access::Str(json_access::At(desired, {"metadata", "name"})), ": ",
                     applied.status().message()));
  }
  if (!applied.ok()) return applied.status();
  return true;
}

bool IsRefusedWrite(const absl::Status& s) {
  return absl::IsPermissionDenied(s) || absl::IsInvalidArgument(s);
}

}  // namespace quorum::runtime
