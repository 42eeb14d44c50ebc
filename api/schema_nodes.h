// Small constructors of OpenAPI v3 schema nodes, for the schema sources of
// Quorum's resources (etcdcluster_schema.cc, postgrescluster_schema.cc).
// Kubernetes types are `$ref`s that openapi_schema.h inlines. Internal to
// api/; includes the full nlohmann header, so only schema sources include it.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_SCHEMA_NODES_H_
#define QUORUM_API_SCHEMA_NODES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace quorum::api::internal::schema {

using Json = nlohmann::json;

// $ref prefixes of the API server's OpenAPI v3 documents.
inline constexpr char kCore[] = "#/components/schemas/io.k8s.api.core.v1.";
inline constexpr char kMeta[] = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.";

inline Json Typed(const char* type, const char* description) {
  return {{"type", type}, {"description", description}};
}
inline Json String(const char* d) { return Typed("string", d); }
inline Json Bool(const char* d) { return Typed("boolean", d); }
inline Json Int32(const char* d) {
  Json j = Typed("integer", d);
  j["format"] = "int32";
  return j;
}
inline Json Int64(const char* d) {
  Json j = Typed("integer", d);
  j["format"] = "int64";
  return j;
}
inline Json Object(const char* d, Json properties) {
  Json j = Typed("object", d);
  j["properties"] = std::move(properties);
  return j;
}
inline Json StringMap(const char* d) {
  Json j = Typed("object", d);
  j["additionalProperties"] = {{"type", "string"}};
  return j;
}
inline Json Ref(const std::string& ref, const char* d) {
  return {{"$ref", ref}, {"description", d}};
}
// A Kubernetes core/v1 type by its short name ("PodSpec").
inline Json CoreRef(const char* type, const char* d) { return Ref(std::string(kCore) + type, d); }
inline Json IntOrString(const char* d) {
  return {{"description", d},
          {"x-kubernetes-int-or-string", true},
          {"anyOf", Json::array({{{"type", "integer"}}, {{"type", "string"}}})}};
}
// One x-kubernetes-validations entry. `field_path` (relative, ".a.b") and
// `reason` are optional: empty leaves them out.
inline Json Rule(const char* rule, const char* message, const char* field_path = "",
                 const char* reason = "") {
  Json j = {{"rule", rule}, {"message", message}};
  if (*field_path != '\0') j["fieldPath"] = field_path;
  if (*reason != '\0') j["reason"] = reason;
  return j;
}

}  // namespace quorum::api::internal::schema

#endif  // QUORUM_API_SCHEMA_NODES_H_
