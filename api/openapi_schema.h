// Turning the API server's OpenAPI v3 schemas into CRD structural schemas.
//
// OpenApiIndex holds the components.schemas of the documents the API server
// serves at /openapi/v3/<group-version>. InlineStructuralSchema takes a
// schema that may `$ref` those components (directly or wrapped in a
// one-element allOf, as the API server writes references) and returns it
// with every reference inlined and every node in the form a
// CustomResourceDefinition accepts:
//
//  * kept: type, format (except int-or-string), description, enum, required,
//    default, items, properties, additionalProperties, numeric/string/array
//    limits, nullable, and the extensions x-kubernetes-list-type,
//    -list-map-keys, -map-type, -int-or-string, -preserve-unknown-fields,
//    -embedded-resource, -validations exactly where the source has them;
//  * dropped: x-kubernetes-patch-*, -unions, -group-version-kind, example;
//  * IntOrString (format int-or-string) and Quantity (oneOf string|number)
//    become x-kubernetes-int-or-string with anyOf [integer, string];
//    Quantity also gets apimachinery's grammar as a pattern;
//  * defaults that are only the Go zero value ("", 0, false, {}, []) are
//    dropped — a CRD would otherwise write them into every object — except
//    on list-map keys, which must be required or defaulted;
//  * a nested ObjectMeta becomes {name, namespace, labels, annotations,
//    finalizers}: what an embedded object may carry;
//  * on a $ref with x-quorum-partial: true, the type's `required` is dropped.
//
// Anything else (an unknown keyword, a oneOf that is not int-or-string, a
// node without a type, a recursive type, a missing reference) is an error
// naming the path, so that a new upstream construct is noticed, not silently
// mistranslated.
//
// The index holds whole documents, so this header includes the full
// nlohmann header: include it only where a CRD is built (crd.cc, crdgen).
// Thread-safety: OpenApiIndex is safe to read concurrently once filled (Add
// is not); functions are pure.
#ifndef QUORUM_API_OPENAPI_SCHEMA_H_
#define QUORUM_API_OPENAPI_SCHEMA_H_

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace quorum::api {

class OpenApiIndex {
 public:
  // Adds every entry of doc.components.schemas; a name seen before keeps
  // its first definition (the documents repeat the shared meta types).
  // Errors: InvalidArgument when `doc` has no components.schemas object.
  absl::Status Add(const nlohmann::json& doc);

  // By name ("io.k8s.api.core.v1.PodSpec") or reference
  // ("#/components/schemas/io.k8s.api.core.v1.PodSpec"); null when absent.
  const nlohmann::json* Find(std::string_view name_or_ref) const;
  size_t size() const { return schemas_.size(); }

 private:
  std::map<std::string, nlohmann::json, std::less<>> schemas_;
};

struct InlineOptions {
  // Keep the descriptions that come from inlined Kubernetes types. Ours (the
  // nodes of the input schema itself) are always kept.
  bool kubernetes_descriptions = true;
};

// Errors: InvalidArgument naming the path (e.g. "spec.podTemplate.spec.
// containers[].ports[]") for the cases listed above; NotFound for a $ref
// missing from the index.
absl::StatusOr<nlohmann::json> InlineStructuralSchema(const nlohmann::json& schema,
                                                      const OpenApiIndex& index,
                                                      const InlineOptions& options = {});

}  // namespace quorum::api

#endif  // QUORUM_API_OPENAPI_SCHEMA_H_
