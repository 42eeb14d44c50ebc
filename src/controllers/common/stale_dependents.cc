#include "src/controllers/common/stale_dependents.h"

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::controllers {

using Json = nlohmann::json;

namespace {

// True when `controller` ("<kind>/<name>/<uid>", the controller index's value)
// names `owner`'s kind and name with another uid.
bool EarlierController(std::string_view controller, const OwnerIdentity& owner) {
  const std::string same_owner = absl::StrCat(Absl(owner.kind), "/", Absl(owner.name), "/");
  return controller.starts_with(same_owner) && controller.substr(same_owner.size()) != owner.uid;
}

}  // namespace

bool OwnedByEarlier(const Json& object, const OwnerIdentity& owner) {
  for (const std::string& controller : runtime::IndexByController(object)) {
    if (EarlierController(controller, owner)) return true;
  }
  return false;
}

std::string StaleDependent(const runtime::Cache& cache,
                           std::initializer_list<kube::GroupVersionResource> gvrs,
                           const OwnerIdentity& owner) {
  // The controller index files each object under "<kind>/<name>/<uid>" of its
  // controller: no object is unpacked to read its owner references.
  for (const kube::GroupVersionResource& gvr : gvrs) {
    for (const auto& [key, controller] :
         cache.IndexedValues(gvr, runtime::kInstanceIndex, runtime::ObjectKey(owner.ns, owner.name),
                             runtime::kControllerIndex)) {
      if (EarlierController(controller, owner)) {
        return gvr.resource + "/" + key.substr(key.find('/') + 1);
      }
    }
  }
  return "";
}

}  // namespace quorum::controllers
