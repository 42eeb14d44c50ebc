#include "api/postgrescluster_defaults.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/postgrescluster.h"
#include "api/postgrescluster_proxy_internal.h"
#include "src/base/json_access.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

bool Missing(const Json& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() || it->is_null();
}

template <typename T>
void SetIfMissing(Json& o, const char* key, const T& value) {
  if (Missing(o, key)) o[key] = value;
}

// The object at o[key], created when missing; null when it holds a
// non-object (left for validation to report).
Json* ObjectAt(Json& o, const char* key) {
  if (Missing(o, key)) o[key] = Json::object();
  Json& child = o[key];
  return child.is_object() ? &child : nullptr;
}

// The object at o[key] when present; never creates it.
Json* ExistingObject(Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? &*it : nullptr;
}

// A claim spec without accessModes gets [ReadWriteOnce].
void DefaultAccessModes(Json* pvc) {
  if (pvc == nullptr) return;
  auto modes = pvc->find("accessModes");
  if (modes == pvc->end() || modes->is_null() || (modes->is_array() && modes->empty())) {
    (*pvc)["accessModes"] = Json::array({std::string(kDefaultDataAccessMode)});
  }
}

void DefaultInstanceSet(Json& set) {
  if (!set.is_object()) return;
  SetIfMissing(set, "name", std::string(kDefaultInstanceSetName));
  SetIfMissing(set, "replicas", kDefaultInstanceReplicas);
  DefaultAccessModes(ExistingObject(set, "dataVolumeClaimSpec"));
}

// spec.backups.pgbackrest.repos[].volume.volumeClaimSpec.accessModes.
void DefaultRepoVolumes(Json& spec) {
  Json* backups = ExistingObject(spec, "backups");
  Json* pgbr = backups != nullptr ? ExistingObject(*backups, "pgbackrest") : nullptr;
  if (pgbr == nullptr) return;
  auto repos = pgbr->find("repos");
  if (repos == pgbr->end() || !repos->is_array()) return;
  for (Json& repo : *repos) {
    Json* volume = repo.is_object() ? ExistingObject(repo, "volume") : nullptr;
    if (volume != nullptr) DefaultAccessModes(ExistingObject(*volume, "volumeClaimSpec"));
  }
}

void DefaultPatroni(Json& spec) {
  Json* patroni = ObjectAt(spec, "patroni");
  if (patroni == nullptr) return;
  SetIfMissing(*patroni, "leaderLeaseDurationSeconds", kDefaultLeaderLeaseDurationSeconds);
  SetIfMissing(*patroni, "syncPeriodSeconds", kDefaultSyncPeriodSeconds);
  SetIfMissing(*patroni, "retryTimeoutSeconds", kDefaultRetryTimeoutSeconds);
  if (Json* dcs = ObjectAt(*patroni, "dcs")) {
    SetIfMissing(*dcs, "type", std::string(kDcsKubernetes));
    SetIfMissing(*patroni, "podAPIAccess",
                 json_access::Str(json_access::At(*dcs, {"type"})) == kDcsEtcd
                     ? kDefaultPodApiAccessWithEtcd
                     : kDefaultPodApiAccess);
  } else {
    SetIfMissing(*patroni, "podAPIAccess", kDefaultPodApiAccess);
  }
  if (Json* switchover = ExistingObject(*patroni, "switchover")) {
    SetIfMissing(*switchover, "type", std::string(kDefaultSwitchoverType));
  }
}

}  // namespace

void DefaultPostgresCluster(Json& obj) {
  if (!obj.is_object()) return;
  Json* spec = ExistingObject(obj, "spec");
  if (spec == nullptr) return;
  if (auto it = spec->find("instances"); it != spec->end() && it->is_array()) {
    for (Json& set : *it) DefaultInstanceSet(set);
  }
  DefaultPatroni(*spec);
  DefaultRepoVolumes(*spec);
  internal::DefaultProxy(*spec);
  if (Json* service = ExistingObject(*spec, "service")) {
    SetIfMissing(*service, "type", std::string(kDefaultServiceType));
  }
}

}  // namespace quorum::api
