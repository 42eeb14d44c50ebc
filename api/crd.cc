#include "api/crd.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdcluster.h"
#include "api/etcdcluster_schema.h"

namespace quorum::api {

absl::StatusOr<nlohmann::json> BuildEtcdClusterCrd(const OpenApiIndex& index,
                                                   const InlineOptions& options) {
  using Json = nlohmann::json;
  absl::StatusOr<Json> schema = InlineStructuralSchema(EtcdClusterSchemaSource(), index, options);
  if (!schema.ok()) return schema.status();
  Json version = {
      {"name", std::string(kEtcdVersion)},
      {"served", true},
      {"storage", true},
      {"subresources", {{"status", Json::object()}}},
      {"additionalPrinterColumns", EtcdClusterPrinterColumns()},
      {"schema", {{"openAPIV3Schema", *std::move(schema)}}},
  };
  return Json{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", std::string(kEtcdClusterCrdName)}}},
      {"spec",
       {{"group", std::string(kEtcdGroup)},
        {"names",
         {{"kind", std::string(kEtcdClusterKind)},
          {"listKind", std::string(kEtcdClusterListKind)},
          {"plural", std::string(kEtcdClusterPlural)},
          {"singular", std::string(kEtcdClusterSingular)}}},
        {"scope", "Namespaced"},
        {"versions", Json::array({std::move(version)})}}},
  };
}

}  // namespace quorum::api
