#include "src/controllers/postgrescluster/dcs_objects.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "src/base/json_access.h"

namespace quorum::postgrescluster {

using json_access::At;

namespace {

// use_endpoints in the kubernetes section of a patroni.yaml that
// patroni::RenderConfig wrote (block style, one key a line); nullopt when the
// file has no such line (no file, or an etcd DCS).
std::optional<bool> UseEndpointsIn(const std::string& yaml) {
  for (absl::string_view line : absl::StrSplit(yaml, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line == "use_endpoints: true") return true;
    if (line == "use_endpoints: false") return false;
  }
  return std::nullopt;
}

}  // namespace

std::string PlanDcsObjects(const PostgresCluster& cluster, const DcsObjectsEvidence& evidence) {
  if (UsesEtcd(cluster)) return "";
  const std::string& recorded = cluster.status.patroni.dcs_objects;
  const bool valid =
      recorded == api::kDcsObjectsEndpoints || recorded == api::kDcsObjectsConfigMaps;
  std::optional<std::string> given;  // what the members were given, if known
  if (std::optional<bool> endpoints = UseEndpointsIn(evidence.patroni_yaml)) {
    given = *endpoints ? api::kDcsObjectsEndpoints : api::kDcsObjectsConfigMaps;
  }
  if (valid && (!given.has_value() || !evidence.has_member_pods)) return recorded;
  if (given.has_value()) return *given;
  const bool ran = evidence.has_statefulset || cluster.status.observed_generation != 0;
  return ran ? api::kDcsObjectsEndpoints : api::kDcsObjectsConfigMaps;
}

bool UsesConfigMaps(const PostgresCluster& cluster) {
  return !UsesEtcd(cluster) && cluster.status.patroni.dcs_objects == api::kDcsObjectsConfigMaps;
}

bool UsesEndpoints(const PostgresCluster& cluster) {
  return !UsesEtcd(cluster) && !UsesConfigMaps(cluster);
}

std::string LeaderObjectName(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  return UsesConfigMaps(cluster) ? n.cluster + "-leader" : n.primary_service;
}

std::vector<std::string> PatroniObjectNames(const PostgresCluster& cluster) {
  if (UsesEtcd(cluster)) return {};
  const Names n = NamesOf(cluster);
  return {LeaderObjectName(cluster), n.cluster + "-config", n.cluster + "-failover",
          n.cluster + "-sync"};
}

std::optional<Json> PatroniObjectOwnerPatch(const PostgresCluster& cluster, const Json& object) {
  if (!UsesConfigMaps(cluster)) return std::nullopt;
  Json refs = Json::array();
  const Json& existing = At(object, {"metadata", "ownerReferences"});
  if (existing.is_array()) {
    for (const Json& ref : existing) {
      if (ref.is_object() && ref.value("uid", "") == cluster.metadata.uid) return std::nullopt;
      refs.push_back(ref);
    }
  }
  Json mine = OwnerReference(cluster);
  mine["controller"] = false;
  mine["blockOwnerDeletion"] = false;
  refs.push_back(std::move(mine));
  return Json{{"metadata", {{"ownerReferences", std::move(refs)}}}};
}

}  // namespace quorum::postgrescluster
