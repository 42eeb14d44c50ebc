#include "src/webhooks/admission_object.h"

#include <nlohmann/json.hpp>

namespace quorum::webhooks {

bool IsObjectWrite(const runtime::AdmissionRequest& r) {
  return (r.operation == "CREATE" || r.operation == "UPDATE") && r.sub_resource.empty();
}

std::string ObjectName(const runtime::AdmissionRequest& r) {
  if (!r.name.empty()) return r.name;
  auto meta = r.object.is_object() ? r.object.find("metadata") : r.object.end();
  if (meta == r.object.end() || !meta->is_object()) return "";
  for (const char* key : {"name", "generateName"}) {
    auto it = meta->find(key);
    if (it != meta->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

}  // namespace quorum::webhooks
