#include "api/etcdcluster_defaults.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdcluster.h"
#include "api/quantity.h"
#include "src/base/json_access.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

bool Missing(const Json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null();
}

bool IsZeroQuantity(const Json& q) {
  absl::StatusOr<Quantity> parsed = QuantityFromJson(q);
  return parsed.ok() && parsed->IsZero();
}

// The object at o[key], created when missing; null when it holds a
// non-object (left for validation to report).
Json* ObjectAt(Json& o, const char* key) {
  if (Missing(o, key)) o[key] = Json::object();
  Json& child = o[key];
  return child.is_object() ? &child : nullptr;
}

}  // namespace

Json DefaultEtcdStorage() {
  return {{"volumeClaimTemplate",
           {{"spec",
             {{"accessModes", Json::array({std::string(kDefaultAccessMode)})},
              {"resources", {{"requests", {{"storage", std::string(kDefaultStorageSize)}}}}}}}}}};
}

void DefaultEtcdCluster(Json& obj) {
  if (!obj.is_object()) return;
  Json* spec = ObjectAt(obj, "spec");
  if (spec == nullptr) return;
  if (Missing(*spec, "replicas")) (*spec)["replicas"] = kDefaultReplicas;

  if (Missing(*spec, "storage")) {
    (*spec)["storage"] = DefaultEtcdStorage();
    return;
  }
  Json& storage = (*spec)["storage"];
  if (!storage.is_object() || !Missing(storage, "emptyDir")) return;
  Json* vct = ObjectAt(storage, "volumeClaimTemplate");
  if (vct == nullptr) return;
  Json* pvc = ObjectAt(*vct, "spec");
  if (pvc == nullptr) return;
  auto modes = pvc->find("accessModes");
  if (modes == pvc->end() || modes->is_null() || (modes->is_array() && modes->empty())) {
    (*pvc)["accessModes"] = Json::array({std::string(kDefaultAccessMode)});
  }
  Json* resources = ObjectAt(*pvc, "resources");
  if (resources == nullptr) return;
  Json* requests = ObjectAt(*resources, "requests");
  if (requests == nullptr) return;
  // A zero size is the default too, as aenix's webhook reads it.
  if (Missing(*requests, "storage") || IsZeroQuantity(json_access::At(*requests, {"storage"}))) {
    (*requests)["storage"] = std::string(kDefaultStorageSize);
  }
}

}  // namespace quorum::api
