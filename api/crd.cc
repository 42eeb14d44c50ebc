#include "api/crd.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/etcdbackup_schema.h"
#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule_schema.h"
#include "api/etcdbackupschedule_types.h"
#include "api/etcdcluster.h"
#include "api/etcdcluster_schema.h"
#include "api/postgres_objects_schema.h"
#include "api/postgresbackup_schema.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_schema.h"
#include "api/postgresrole.h"
#include "src/base/json_access.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

struct CrdNames {
  std::string_view crd_name, group, version, kind, list_kind, plural, singular;
  std::vector<std::string_view> short_names;
  Json scale = nullptr;  // the /scale subresource's paths; null: none
};

absl::StatusOr<Json> BuildCrd(const CrdNames& n, const Json& schema_source,
                              const Json& printer_columns, const OpenApiIndex& index,
                              const InlineOptions& options) {
  absl::StatusOr<Json> schema = InlineStructuralSchema(schema_source, index, options);
  if (!schema.ok()) return schema.status();
  Json subresources = {{"status", Json::object()}};
  if (!n.scale.is_null()) subresources["scale"] = n.scale;
  Json version = {
      {"name", std::string(n.version)},
      {"served", true},
      {"storage", true},
      {"subresources", std::move(subresources)},
      {"additionalPrinterColumns", printer_columns},
      {"schema", {{"openAPIV3Schema", *std::move(schema)}}},
  };
  Json names = {{"kind", std::string(n.kind)},
                {"listKind", std::string(n.list_kind)},
                {"plural", std::string(n.plural)},
                {"singular", std::string(n.singular)}};
  if (!n.short_names.empty()) {
    Json short_names = Json::array();
    for (std::string_view s : n.short_names) short_names.push_back(std::string(s));
    names["shortNames"] = std::move(short_names);
  }
  return Json{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", std::string(n.crd_name)}}},
      {"spec",
       {{"group", std::string(n.group)},
        {"names", std::move(names)},
        {"scope", "Namespaced"},
        {"versions", Json::array({std::move(version)})}}},
  };
}

}  // namespace

absl::StatusOr<Json> BuildEtcdClusterCrd(const OpenApiIndex& index, const InlineOptions& options) {
  // kubectl scale and autoscalers: the members asked for, the members the
  // StatefulSet runs, and the pods' selector (status.replicas, status.selector).
  const CrdNames names{.crd_name = kEtcdClusterCrdName,
                       .group = kEtcdGroup,
                       .version = kEtcdVersion,
                       .kind = kEtcdClusterKind,
                       .list_kind = kEtcdClusterListKind,
                       .plural = kEtcdClusterPlural,
                       .singular = kEtcdClusterSingular,
                       .scale = {{"specReplicasPath", ".spec.replicas"},
                                 {"statusReplicasPath", ".status.replicas"},
                                 {"labelSelectorPath", ".status.selector"}}};
  return BuildCrd(names, EtcdClusterSchemaSource(), EtcdClusterPrinterColumns(), index, options);
}

absl::StatusOr<Json> BuildEtcdBackupCrd(const OpenApiIndex& index, const InlineOptions& options) {
  const CrdNames names{kEtcdBackupCrdName,  kEtcdGroup,        kEtcdVersion,        kEtcdBackupKind,
                       kEtcdBackupListKind, kEtcdBackupPlural, kEtcdBackupSingular, {}};
  return BuildCrd(names, EtcdBackupSchemaSource(), EtcdBackupPrinterColumns(), index, options);
}

absl::StatusOr<Json> BuildEtcdBackupScheduleCrd(const OpenApiIndex& index,
                                                const InlineOptions& options) {
  const CrdNames names{kEtcdBackupScheduleCrdName,
                       kEtcdGroup,
                       kEtcdVersion,
                       kEtcdBackupScheduleKind,
                       kEtcdBackupScheduleListKind,
                       kEtcdBackupSchedulePlural,
                       kEtcdBackupScheduleSingular,
                       {}};
  return BuildCrd(names, EtcdBackupScheduleSchemaSource(), EtcdBackupSchedulePrinterColumns(),
                  index, options);
}

absl::StatusOr<Json> BuildPostgresClusterCrd(const OpenApiIndex& index,
                                             const InlineOptions& options) {
  const CrdNames names{kPostgresClusterCrdName,  kPostgresGroup,
                       kPostgresVersion,         kPostgresClusterKind,
                       kPostgresClusterListKind, kPostgresClusterPlural,
                       kPostgresClusterSingular, {kPostgresClusterShortName}};
  return BuildCrd(names, PostgresClusterSchemaSource(), PostgresClusterPrinterColumns(), index,
                  options);
}

absl::StatusOr<Json> BuildPostgresBackupCrd(const OpenApiIndex& index,
                                            const InlineOptions& options) {
  const CrdNames names{
      kPostgresBackupCrdName,  kPostgresGroup,        kPostgresVersion,        kPostgresBackupKind,
      kPostgresBackupListKind, kPostgresBackupPlural, kPostgresBackupSingular, {}};
  return BuildCrd(names, PostgresBackupSchemaSource(), PostgresBackupPrinterColumns(), index,
                  options);
}

absl::StatusOr<Json> BuildPostgresRoleCrd(const OpenApiIndex& index, const InlineOptions& options) {
  const CrdNames names{
      kPostgresRoleCrdName,  kPostgresGroup,      kPostgresVersion,      kPostgresRoleKind,
      kPostgresRoleListKind, kPostgresRolePlural, kPostgresRoleSingular, {}};
  return BuildCrd(names, PostgresRoleSchemaSource(), PostgresRolePrinterColumns(), index, options);
}

absl::StatusOr<Json> BuildPostgresDatabaseCrd(const OpenApiIndex& index,
                                              const InlineOptions& options) {
  const CrdNames names{kPostgresDatabaseCrdName,  kPostgresGroup,
                       kPostgresVersion,          kPostgresDatabaseKind,
                       kPostgresDatabaseListKind, kPostgresDatabasePlural,
                       kPostgresDatabaseSingular, {}};
  return BuildCrd(names, PostgresDatabaseSchemaSource(), PostgresDatabasePrinterColumns(), index,
                  options);
}

absl::StatusOr<std::vector<Json>> BuildCrds(const OpenApiIndex& index,
                                            const InlineOptions& options) {
  std::vector<Json> out;
  for (auto build : {BuildEtcdClusterCrd, BuildEtcdBackupCrd, BuildEtcdBackupScheduleCrd,
                     BuildPostgresClusterCrd, BuildPostgresBackupCrd, BuildPostgresRoleCrd,
                     BuildPostgresDatabaseCrd}) {
    absl::StatusOr<Json> crd = build(index, options);
    if (!crd.ok()) return crd.status();
    out.push_back(*std::move(crd));
  }
  return out;
}

std::string CrdFileName(const Json& crd) {
  const Json* spec = json_access::Child(&crd, "spec");
  const std::string group = json_access::Str(spec, "group");
  const std::string plural = json_access::Str(json_access::Child(spec, "names"), "plural");
  if (group.empty() || plural.empty()) return "";
  return group + "_" + plural + ".yaml";
}

}  // namespace quorum::api
