#include "src/controllers/common/stale_dependents.h"

#include "src/base/json_access.h"

namespace quorum::controllers {

using json_access::At;
using json_access::Str;
using Json = nlohmann::json;

bool OwnedByEarlier(const Json& object, const OwnerIdentity& owner) {
  for (const Json& ref : At(object, {"metadata", "ownerReferences"})) {
    const Json& controller = At(ref, {"controller"});
    if (!controller.is_boolean() || !controller.get<bool>()) continue;
    return Str(At(ref, {"kind"})) == owner.kind && Str(At(ref, {"name"})) == owner.name &&
           Str(At(ref, {"uid"})) != owner.uid;
  }
  return false;
}

std::string StaleDependent(const runtime::Cache& cache,
                           std::initializer_list<kube::GroupVersionResource> gvrs,
                           const OwnerIdentity& owner) {
  for (const kube::GroupVersionResource& gvr : gvrs) {
    for (const runtime::ObjectPtr& o : cache.ByInstance(gvr, owner.ns, owner.name)) {
      if (OwnedByEarlier(*o, owner)) {
        return gvr.resource + "/" + Str(At(*o, {"metadata", "name"}));
      }
    }
  }
  return "";
}

}  // namespace quorum::controllers
