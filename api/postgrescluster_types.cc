#include "api/postgrescluster_types.h"

#include "api/decode.h"
#include "api/postgrescluster_defaults.h"
#include "api/postgrescluster_monitoring_internal.h"
#include "api/postgrescluster_proxy_internal.h"
#include "api/postgrescluster_validation.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::Decoder;
using internal::Join;

std::string Indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void DecodeMeta(Decoder& d, const Json* o, const std::string& path, TemplateMeta& out) {
  const Json* meta = d.Member(o, path, "metadata");
  const std::string at = Join(path, "metadata");
  d.StringMap(meta, at, "labels", out.labels);
  d.StringMap(meta, at, "annotations", out.annotations);
}

void DecodeInstanceSet(Decoder& d, const Json& o, const std::string& at, PostgresInstanceSet& out) {
  d.String(&o, at, "name", out.name);
  d.Int32(&o, at, "replicas", out.replicas);
  d.Object(&o, at, "dataVolumeClaimSpec", out.data_volume_claim_spec);
  d.Object(&o, at, "resources", out.resources);
  d.Object(&o, at, "affinity", out.affinity);
  d.Array(&o, at, "tolerations", out.tolerations);
  d.Array(&o, at, "topologySpreadConstraints", out.topology_spread_constraints);
  DecodeMeta(d, &o, at, out.metadata);
}

// A list of objects at o[key], each decoded by `one` at "path.key[i]".
template <typename T, typename F>
void DecodeList(Decoder& d, const Json* o, const std::string& path, const std::string& key,
                std::vector<T>& out, F one) {
  const Json* list = d.Member(o, path, key);
  if (list == nullptr) return;
  const std::string at = Join(path, key);
  if (!list->is_array()) {
    d.Fail(at, "want a list, got " + list->dump(-1, ' ', false, Json::error_handler_t::replace));
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    if (!item.is_object()) {
      d.Fail(Indexed(at, i), "want an object");
      continue;
    }
    one(d, item, Indexed(at, i), out.emplace_back());
  }
}

void DecodeEtcd(Decoder& d, const Json* dcs, PostgresEtcdDcs& out) {
  const std::string at = "spec.patroni.dcs.etcd";
  const Json* etcd = d.Member(dcs, "spec.patroni.dcs", "etcd");
  d.String(d.Member(etcd, at, "clusterRef"), at + ".clusterRef", "name", out.cluster_ref);
  d.StringList(etcd, at, "endpoints", out.endpoints);
  d.String(etcd, at, "tlsSecret", out.tls_secret);
  d.String(etcd, at, "authSecret", out.auth_secret);
  d.String(etcd, at, "namespace", out.key_namespace);
}

void DecodePatroni(Decoder& d, const Json* spec, PatroniSpec& out) {
  const std::string at = "spec.patroni";
  const Json* p = d.Member(spec, "spec", "patroni");
  d.Int32(p, at, "leaderLeaseDurationSeconds", out.leader_lease_duration_seconds);
  d.Int32(p, at, "syncPeriodSeconds", out.sync_period_seconds);
  d.Int32(p, at, "retryTimeoutSeconds", out.retry_timeout_seconds);
  d.Object(p, at, "dynamicConfiguration", out.dynamic_configuration);
  d.Bool(p, at, "podAPIAccess", out.pod_api_access);
  const Json* dcs = d.Member(p, at, "dcs");
  d.String(dcs, at + ".dcs", "type", out.dcs.type);
  if (out.dcs.type.empty()) out.dcs.type = std::string(kDcsKubernetes);
  DecodeEtcd(d, dcs, out.dcs.etcd);
  const Json* sw = d.Member(p, at, "switchover");
  d.Bool(sw, at + ".switchover", "enabled", out.switchover.enabled);
  d.String(sw, at + ".switchover", "targetInstance", out.switchover.target_instance);
  d.String(sw, at + ".switchover", "type", out.switchover.type);
  if (out.switchover.type.empty()) out.switchover.type = std::string(kDefaultSwitchoverType);
}

void DecodeTarget(Decoder& d, const Json* parent, const std::string& at,
                  PgBackRestRestoreTarget& out) {
  const Json* target = d.Member(parent, at, "target");
  d.String(target, at + ".target", "time", out.time);
  d.String(target, at + ".target", "lsn", out.lsn);
  d.String(target, at + ".target", "xid", out.xid);
}

void DecodeBackups(Decoder& d, const Json* spec, PostgresBackupsSpec& out) {
  const Json* pgbr = d.Member(d.Member(spec, "spec", "backups"), "spec.backups", "pgbackrest");
  if (pgbr == nullptr) return;
  const std::string at = "spec.backups.pgbackrest";
  PgBackRestSpec& p = out.pgbackrest.emplace();
  DecodeList(d, pgbr, at, "repos", p.repos,
             [](Decoder& d, const Json& o, const std::string& at, PgBackRestRepo& r) {
               d.String(&o, at, "name", r.name);
               const Json* s3 = d.Member(&o, at, "s3");
               d.String(s3, at + ".s3", "bucket", r.s3.bucket);
               d.String(s3, at + ".s3", "endpoint", r.s3.endpoint);
               d.String(s3, at + ".s3", "region", r.s3.region);
               d.Object(d.Member(&o, at, "volume"), at + ".volume", "volumeClaimSpec",
                        r.volume_claim_spec);
               const Json* sch = d.Member(&o, at, "schedules");
               d.String(sch, at + ".schedules", "full", r.schedules.full);
               d.String(sch, at + ".schedules", "differential", r.schedules.differential);
               d.String(sch, at + ".schedules", "incremental", r.schedules.incremental);
             });
  struct Projection {
    std::string secret;
  };
  std::vector<Projection> projections;
  DecodeList(d, pgbr, at, "configuration", projections,
             [](Decoder& d, const Json& o, const std::string& at, Projection& c) {
               d.String(d.Member(&o, at, "secret"), at + ".secret", "name", c.secret);
             });
  for (Projection& c : projections) p.configuration_secrets.push_back(std::move(c.secret));
  d.StringMap(pgbr, at, "global", p.global);
  if (const Json* restore = d.Member(pgbr, at, "restore")) {
    PgBackRestInPlaceRestore& r = p.restore.emplace();
    d.Bool(restore, at + ".restore", "enabled", r.enabled);
    d.String(restore, at + ".restore", "repoName", r.repo_name);
    d.String(restore, at + ".restore", "set", r.set);
    DecodeTarget(d, restore, at + ".restore", r.target);
  }
}

void DecodeDataSource(Decoder& d, const Json* spec, PostgresDataSource& out) {
  const Json* src = d.Member(d.Member(spec, "spec", "dataSource"), "spec.dataSource", "pgbackrest");
  if (src == nullptr) return;
  const std::string at = "spec.dataSource.pgbackrest";
  PgBackRestDataSource& p = out.pgbackrest.emplace();
  d.String(src, at, "clusterName", p.cluster_name);
  d.String(src, at, "clusterNamespace", p.cluster_namespace);
  const Json* repo = d.Member(src, at, "repo");
  d.String(repo, at + ".repo", "name", p.repo.name);
  const Json* s3 = d.Member(repo, at + ".repo", "s3");
  d.String(s3, at + ".repo.s3", "bucket", p.repo.s3.bucket);
  d.String(s3, at + ".repo.s3", "endpoint", p.repo.s3.endpoint);
  d.String(s3, at + ".repo.s3", "region", p.repo.s3.region);
  struct Projection {
    std::string secret;
  };
  std::vector<Projection> projections;
  DecodeList(d, src, at, "configuration", projections,
             [](Decoder& d, const Json& o, const std::string& at, Projection& c) {
               d.String(d.Member(&o, at, "secret"), at + ".secret", "name", c.secret);
             });
  for (Projection& c : projections) p.configuration_secrets.push_back(std::move(c.secret));
  d.StringMap(src, at, "global", p.global);
  d.String(src, at, "set", p.set);
  DecodeTarget(d, src, at, p.target);
}

void DecodeSpec(Decoder& d, const Json* spec, PostgresClusterSpec& out) {
  d.Int32(spec, "spec", "postgresVersion", out.postgres_version);
  d.String(spec, "spec", "image", out.image);
  DecodeList(d, spec, "spec", "instances", out.instances, DecodeInstanceSet);
  DecodePatroni(d, spec, out.patroni);
  DecodeList(d, spec, "spec", "users", out.users,
             [](Decoder& d, const Json& o, const std::string& at, PostgresUserSpec& u) {
               d.String(&o, at, "name", u.name);
               d.StringList(&o, at, "databases", u.databases);
               d.StringList(&o, at, "options", u.options);
             });
  DecodeList(d, d.Member(spec, "spec", "authentication"), "spec.authentication", "rules",
             out.authentication.rules,
             [](Decoder& d, const Json& o, const std::string& at, PostgresHbaRule& r) {
               d.String(&o, at, "connection", r.connection);
               if (r.connection.empty()) r.connection = std::string(kDefaultHbaConnection);
               d.StringList(&o, at, "databases", r.databases);
               d.StringList(&o, at, "users", r.users);
               d.String(&o, at, "address", r.address);
               d.String(&o, at, "method", r.method);
               d.StringMap(&o, at, "options", r.options);
             });
  const Json* service = d.Member(spec, "spec", "service");
  d.String(service, "spec.service", "type", out.service.type);
  if (out.service.type.empty()) out.service.type = std::string(kDefaultServiceType);
  DecodeMeta(d, service, "spec.service", out.service.metadata);
  const Json* tls = d.Member(spec, "spec", "tls");
  d.String(tls, "spec.tls", "customSecret", out.tls.custom_secret);
  d.String(tls, "spec.tls", "caSecret", out.tls.ca_secret);
  d.Bool(tls, "spec.tls", "allowPlaintext", out.tls.allow_plaintext);
  const Json* np = d.Member(spec, "spec", "networkPolicy");
  d.Bool(np, "spec.networkPolicy", "enabled", out.network_policy.enabled);
  d.Array(np, "spec.networkPolicy", "postgresFrom", out.network_policy.postgres_from);
  DecodeBackups(d, spec, out.backups);
  DecodeDataSource(d, spec, out.data_source);
  internal::DecodeProxy(d, spec, out.proxy);
  internal::DecodeMonitoring(d, spec, out.monitoring);
}

void DecodeCondition(Decoder& d, const Json& c, const std::string& at, Condition& out) {
  d.String(&c, at, "type", out.type);
  d.String(&c, at, "status", out.status);
  d.String(&c, at, "reason", out.reason);
  d.String(&c, at, "message", out.message);
  d.Int64(&c, at, "observedGeneration", out.observed_generation);
  d.String(&c, at, "lastTransitionTime", out.last_transition_time);
}

// Status is written by Quorum only; a malformed list entry is skipped rather
// than blocking the reconcile that would rewrite it.
template <typename T, typename F>
void DecodeStatusList(Decoder& d, const Json* status, const char* key, std::vector<T>& out, F one) {
  const Json* list = d.Member(status, "status", key);
  for (size_t i = 0; list != nullptr && list->is_array() && i < list->size(); ++i) {
    if (!(*list)[i].is_object()) continue;
    one(d, (*list)[i], Indexed(std::string("status.") + key, i), out.emplace_back());
  }
}

void DecodeStatus(Decoder& d, const Json* status, PostgresClusterStatus& out) {
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  DecodeStatusList(d, status, "conditions", out.conditions, DecodeCondition);
  DecodeStatusList(d, status, "instances", out.instances,
                   [](Decoder& d, const Json& o, const std::string& at, PostgresInstanceStatus& s) {
                     d.String(&o, at, "name", s.name);
                     d.Int32(&o, at, "replicas", s.replicas);
                     d.Int32(&o, at, "readyReplicas", s.ready_replicas);
                     d.Int32(&o, at, "updatedReplicas", s.updated_replicas);
                   });
  d.Int32(status, "status", "postgresVersion", out.postgres_version);
  if (const Json* u = d.Member(status, "status", "majorUpgrade")) {
    const std::string at = "status.majorUpgrade";
    PostgresMajorUpgradeStatus& x = out.major_upgrade.emplace();
    d.Int32(u, at, "from", x.from);
    d.Int32(u, at, "to", x.to);
    d.String(u, at, "phase", x.phase);
    d.String(u, at, "member", x.member);
    d.String(u, at, "fromImage", x.from_image);
    d.String(u, at, "startedAt", x.started_at);
    d.String(u, at, "finishedAt", x.finished_at);
    d.String(u, at, "message", x.message);
  }
  d.String(status, "status", "readyInstances", out.ready_instances);
  d.String(status, "status", "primary", out.primary);
  d.String(status, "status", "primaryService", out.primary_service);
  d.String(status, "status", "replicaService", out.replica_service);
  DecodeStatusList(d, status, "users", out.users,
                   [](Decoder& d, const Json& o, const std::string& at, PostgresUserStatus& u) {
                     d.String(&o, at, "name", u.name);
                     d.String(&o, at, "secretName", u.secret_name);
                   });
  const Json* pgbr =
      d.Member(d.Member(status, "status", "backups"), "status.backups", "pgbackrest");
  if (const Json* r = d.Member(pgbr, "status.backups.pgbackrest", "restore")) {
    const std::string at = "status.backups.pgbackrest.restore";
    PgBackRestRestoreStatus& x = out.restore.emplace();
    d.String(r, at, "id", x.id);
    d.String(r, at, "phase", x.phase);
    d.String(r, at, "startedAt", x.started_at);
    d.String(r, at, "finishedAt", x.finished_at);
    d.String(r, at, "message", x.message);
  }
  const Json* repos = d.Member(pgbr, "status.backups.pgbackrest", "repos");
  for (size_t i = 0; repos != nullptr && repos->is_array() && i < repos->size(); ++i) {
    const Json& r = (*repos)[i];
    const std::string at = "status.backups.pgbackrest.repos[" + std::to_string(i) + "]";
    PgBackRestRepoStatus& rs = out.backup_repos.emplace_back();
    d.String(&r, at, "name", rs.name);
    for (auto [key, ref] :
         {std::pair{"full", &rs.full}, std::pair{"differential", &rs.differential},
          std::pair{"incremental", &rs.incremental}}) {
      if (const Json* b = d.Member(&r, at, key)) {
        PgBackRestBackupRef& x = ref->emplace();
        d.String(b, at + "." + key, "backup", x.backup);
        d.String(b, at + "." + key, "label", x.label);
        d.String(b, at + "." + key, "stopTime", x.stop_time);
      }
    }
    d.String(&r, at, "walArchivedUpTo", rs.wal_archived_up_to);
    const Json* window = d.Member(&r, at, "recoverableWindow");
    d.String(window, at + ".recoverableWindow", "start", rs.recoverable_from);
    d.String(window, at + ".recoverableWindow", "end", rs.recoverable_to);
  }
  internal::DecodeProxyStatus(d, status, out);
  const Json* patroni = d.Member(status, "status", "patroni");
  d.String(patroni, "status.patroni", "systemIdentifier", out.patroni.system_identifier);
  d.String(patroni, "status.patroni", "dcsObjects", out.patroni.dcs_objects);
  if (const Json* sw = d.Member(patroni, "status.patroni", "switchover")) {
    const std::string at = "status.patroni.switchover";
    PostgresSwitchoverStatus& s = out.patroni.switchover.emplace();
    d.String(sw, at, "trigger", s.trigger);
    d.String(sw, at, "type", s.type);
    d.String(sw, at, "from", s.from);
    d.String(sw, at, "to", s.to);
    d.String(sw, at, "time", s.time);
    d.String(sw, at, "result", s.result);
    d.String(sw, at, "message", s.message);
  }
}

Json MetaJson(const TemplateMeta& m) {
  Json out = Json::object();
  if (!m.labels.empty()) out["labels"] = m.labels;
  if (!m.annotations.empty()) out["annotations"] = m.annotations;
  return out;
}

Json InstanceSetJson(const PostgresInstanceSet& s) {
  Json out = {{"name", s.name}, {"replicas", s.replicas}};
  for (const auto& [key, value] : {std::pair{"dataVolumeClaimSpec", &s.data_volume_claim_spec},
                                   {"resources", &s.resources},
                                   {"affinity", &s.affinity},
                                   {"tolerations", &s.tolerations},
                                   {"topologySpreadConstraints", &s.topology_spread_constraints}}) {
    if (!value->is_null()) out[key] = *value;
  }
  if (Json meta = MetaJson(s.metadata); !meta.empty()) out["metadata"] = meta;
  return out;
}

Json PatroniJson(const PatroniSpec& p) {
  Json dcs = {{"type", p.dcs.type}};
  if (p.dcs.UsesEtcd()) {
    const PostgresEtcdDcs& e = p.dcs.etcd;
    Json etcd = Json::object();
    if (!e.cluster_ref.empty()) etcd["clusterRef"] = {{"name", e.cluster_ref}};
    if (!e.endpoints.empty()) etcd["endpoints"] = e.endpoints;
    if (!e.tls_secret.empty()) etcd["tlsSecret"] = e.tls_secret;
    if (!e.auth_secret.empty()) etcd["authSecret"] = e.auth_secret;
    if (!e.key_namespace.empty()) etcd["namespace"] = e.key_namespace;
    dcs["etcd"] = etcd;
  }
  Json out = {{"leaderLeaseDurationSeconds", p.leader_lease_duration_seconds},
              {"syncPeriodSeconds", p.sync_period_seconds},
              {"retryTimeoutSeconds", p.retry_timeout_seconds},
              {"podAPIAccess", p.pod_api_access},
              {"dcs", dcs},
              {"switchover", {{"enabled", p.switchover.enabled}, {"type", p.switchover.type}}}};
  if (!p.dynamic_configuration.is_null()) out["dynamicConfiguration"] = p.dynamic_configuration;
  if (!p.switchover.target_instance.empty()) {
    out["switchover"]["targetInstance"] = p.switchover.target_instance;
  }
  return out;
}

Json ToJson(const PgBackRestRestoreTarget& t) {
  Json out = Json::object();
  if (!t.time.empty()) out["time"] = t.time;
  if (!t.lsn.empty()) out["lsn"] = t.lsn;
  if (!t.xid.empty()) out["xid"] = t.xid;
  return out;
}

}  // namespace

absl::StatusOr<PostgresCluster> DecodePostgresCluster(const Json& obj) {
  if (!obj.is_object())
    return absl::InvalidArgumentError("a PostgresCluster must be a JSON object");
  Decoder d;
  PostgresCluster out;
  const Json* meta = d.Member(&obj, "", "metadata");
  d.String(meta, "metadata", "name", out.metadata.name);
  d.String(meta, "metadata", "namespace", out.metadata.ns);
  d.String(meta, "metadata", "uid", out.metadata.uid);
  d.Int64(meta, "metadata", "generation", out.metadata.generation);
  d.String(meta, "metadata", "creationTimestamp", out.metadata.creation_timestamp);
  out.metadata.deleting = d.Member(meta, "metadata", "deletionTimestamp") != nullptr;
  d.StringMap(meta, "metadata", "annotations", out.metadata.annotations);
  DecodeSpec(d, d.Member(&obj, "", "spec"), out.spec);
  DecodeStatus(d, d.Member(&obj, "", "status"), out.status);
  if (absl::Status s = d.ToStatus(); !s.ok()) return s;
  return out;
}

absl::StatusOr<PostgresCluster> ParsePostgresCluster(const Json& obj) {
  Json defaulted = obj;
  DefaultPostgresCluster(defaulted);
  if (std::vector<FieldError> errors = ValidatePostgresCluster(defaulted, nullptr);
      !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  return DecodePostgresCluster(defaulted);
}

// NOLINTNEXTLINE(readability-function-size): one line per field of the spec.
Json ToJson(const PostgresClusterSpec& spec) {
  Json instances = Json::array();
  for (const PostgresInstanceSet& s : spec.instances) instances.push_back(InstanceSetJson(s));
  Json out = {{"postgresVersion", spec.postgres_version},
              {"instances", instances},
              {"patroni", PatroniJson(spec.patroni)}};
  if (!spec.image.empty()) out["image"] = spec.image;
  if (!spec.users.empty()) {
    Json users = Json::array();
    for (const PostgresUserSpec& u : spec.users) {
      Json j = {{"name", u.name}};
      if (!u.databases.empty()) j["databases"] = u.databases;
      if (!u.options.empty()) j["options"] = u.options;
      users.push_back(std::move(j));
    }
    out["users"] = users;
  }
  if (!spec.authentication.rules.empty()) {
    Json rules = Json::array();
    for (const PostgresHbaRule& r : spec.authentication.rules) {
      Json j = {{"connection", r.connection}, {"method", r.method}};
      if (!r.databases.empty()) j["databases"] = r.databases;
      if (!r.users.empty()) j["users"] = r.users;
      if (!r.address.empty()) j["address"] = r.address;
      if (!r.options.empty()) j["options"] = r.options;
      rules.push_back(std::move(j));
    }
    out["authentication"] = {{"rules", rules}};
  }
  Json service = {{"type", spec.service.type}};
  if (Json meta = MetaJson(spec.service.metadata); !meta.empty()) service["metadata"] = meta;
  out["service"] = service;
  Json tls = Json::object();
  if (!spec.tls.custom_secret.empty()) tls["customSecret"] = spec.tls.custom_secret;
  if (!spec.tls.ca_secret.empty()) tls["caSecret"] = spec.tls.ca_secret;
  if (spec.tls.allow_plaintext) tls["allowPlaintext"] = true;
  if (!tls.empty()) out["tls"] = tls;
  Json np = Json::object();
  if (!spec.network_policy.enabled) np["enabled"] = false;
  if (!spec.network_policy.postgres_from.is_null()) {
    np["postgresFrom"] = spec.network_policy.postgres_from;
  }
  if (!np.empty()) out["networkPolicy"] = np;
  if (const std::optional<PgBackRestSpec>& p = spec.backups.pgbackrest) {
    Json repos = Json::array();
    for (const PgBackRestRepo& r : p->repos) {
      Json repo = {{"name", r.name}};
      if (r.IsVolume()) {
        repo["volume"] = {{"volumeClaimSpec", r.volume_claim_spec}};
      } else {
        repo["s3"] = {
            {"bucket", r.s3.bucket}, {"endpoint", r.s3.endpoint}, {"region", r.s3.region}};
      }
      Json schedules = Json::object();
      if (!r.schedules.full.empty()) schedules["full"] = r.schedules.full;
      if (!r.schedules.differential.empty()) schedules["differential"] = r.schedules.differential;
      if (!r.schedules.incremental.empty()) schedules["incremental"] = r.schedules.incremental;
      if (!schedules.empty()) repo["schedules"] = schedules;
      repos.push_back(repo);
    }
    Json pgbr = {{"repos", repos}};
    if (!p->configuration_secrets.empty()) {
      Json configuration = Json::array();
      for (const std::string& s : p->configuration_secrets) {
        configuration.push_back({{"secret", {{"name", s}}}});
      }
      pgbr["configuration"] = configuration;
    }
    if (!p->global.empty()) pgbr["global"] = p->global;
    if (const std::optional<PgBackRestInPlaceRestore>& r = p->restore) {
      Json restore = {{"enabled", r->enabled}};
      if (!r->repo_name.empty()) restore["repoName"] = r->repo_name;
      if (!r->set.empty()) restore["set"] = r->set;
      if (Json t = ToJson(r->target); !t.empty()) restore["target"] = t;
      pgbr["restore"] = restore;
    }
    out["backups"] = {{"pgbackrest", pgbr}};
  }
  if (const std::optional<PgBackRestDataSource>& p = spec.data_source.pgbackrest) {
    Json src = {{"repo",
                 {{"name", p->repo.name},
                  {"s3",
                   {{"bucket", p->repo.s3.bucket},
                    {"endpoint", p->repo.s3.endpoint},
                    {"region", p->repo.s3.region}}}}}};
    if (!p->cluster_name.empty()) src["clusterName"] = p->cluster_name;
    if (!p->cluster_namespace.empty()) src["clusterNamespace"] = p->cluster_namespace;
    if (!p->configuration_secrets.empty()) {
      Json configuration = Json::array();
      for (const std::string& s : p->configuration_secrets) {
        configuration.push_back({{"secret", {{"name", s}}}});
      }
      src["configuration"] = configuration;
    }
    if (!p->global.empty()) src["global"] = p->global;
    if (!p->set.empty()) src["set"] = p->set;
    if (Json t = ToJson(p->target); !t.empty()) src["target"] = t;
    out["dataSource"] = {{"pgbackrest", src}};
  }
  if (Json proxy = internal::ProxyJson(spec.proxy); !proxy.is_null()) out["proxy"] = proxy;
  if (Json m = internal::MonitoringJson(spec.monitoring); !m.is_null()) out["monitoring"] = m;
  return out;
}

Json ToJson(const PostgresClusterStatus& s) {
  Json conditions = Json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  Json instances = Json::array();
  for (const PostgresInstanceStatus& i : s.instances) {
    instances.push_back({{"name", i.name},
                         {"replicas", i.replicas},
                         {"readyReplicas", i.ready_replicas},
                         {"updatedReplicas", i.updated_replicas}});
  }
  Json users = Json::array();
  for (const PostgresUserStatus& u : s.users) {
    users.push_back({{"name", u.name}, {"secretName", u.secret_name}});
  }
  Json out = {{"observedGeneration", s.observed_generation},
              {"conditions", conditions},
              {"instances", instances},
              {"readyInstances", s.ready_instances},
              {"primaryService", s.primary_service},
              {"replicaService", s.replica_service},
              {"users", users}};
  if (!s.primary.empty()) out["primary"] = s.primary;
  if (s.postgres_version != 0) out["postgresVersion"] = s.postgres_version;
  if (const std::optional<PostgresMajorUpgradeStatus>& u = s.major_upgrade) {
    Json upgrade = {{"from", u->from},
                    {"to", u->to},
                    {"phase", u->phase},
                    {"member", u->member},
                    {"fromImage", u->from_image},
                    {"startedAt", u->started_at}};
    if (!u->finished_at.empty()) upgrade["finishedAt"] = u->finished_at;
    if (!u->message.empty()) upgrade["message"] = u->message;
    out["majorUpgrade"] = upgrade;
  }
  Json patroni = Json::object();
  if (!s.patroni.system_identifier.empty()) {
    patroni["systemIdentifier"] = s.patroni.system_identifier;
  }
  if (!s.patroni.dcs_objects.empty()) patroni["dcsObjects"] = s.patroni.dcs_objects;
  if (const auto& sw = s.patroni.switchover) {
    patroni["switchover"] = {{"trigger", sw->trigger}, {"type", sw->type}, {"from", sw->from},
                             {"to", sw->to},           {"time", sw->time}, {"result", sw->result},
                             {"message", sw->message}};
  }
  if (!patroni.empty()) out["patroni"] = patroni;
  Json pgbr = Json::object();
  if (const std::optional<PgBackRestRestoreStatus>& r = s.restore) {
    Json restore = {{"id", r->id}, {"phase", r->phase}, {"startedAt", r->started_at}};
    if (!r->finished_at.empty()) restore["finishedAt"] = r->finished_at;
    if (!r->message.empty()) restore["message"] = r->message;
    pgbr["restore"] = restore;
  }
  if (!s.backup_repos.empty()) {
    Json repos = Json::array();
    for (const PgBackRestRepoStatus& r : s.backup_repos) {
      Json repo = {{"name", r.name}};
      for (const auto& [key, ref] :
           {std::pair{"full", &r.full}, std::pair{"differential", &r.differential},
            std::pair{"incremental", &r.incremental}}) {
        if (ref->has_value()) {
          repo[key] = {{"backup", (*ref)->backup},
                       {"label", (*ref)->label},
                       {"stopTime", (*ref)->stop_time}};
        }
      }
      if (!r.wal_archived_up_to.empty()) repo["walArchivedUpTo"] = r.wal_archived_up_to;
      if (!r.recoverable_from.empty()) {
        repo["recoverableWindow"] = {{"start", r.recoverable_from}, {"end", r.recoverable_to}};
      }
      repos.push_back(repo);
    }
    pgbr["repos"] = repos;
  }
  if (!pgbr.empty()) out["backups"] = {{"pgbackrest", pgbr}};
  if (Json proxy = internal::ProxyStatusJson(s); !proxy.is_null()) out["proxy"] = proxy;
  return out;
}

const Condition* FindCondition(const PostgresClusterStatus& status, const std::string& type) {
  for (const Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace quorum::api
