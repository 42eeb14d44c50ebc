#include "api/etcdcluster_types.h"

#include "api/decode.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_validation.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::Decoder;
using internal::Join;

void DecodeTemplateMeta(Decoder& d, const Json* o, const std::string& path, TemplateMeta& out) {
  const Json* meta = d.Member(o, path, "metadata");
  const std::string at = Join(path, "metadata");
  d.String(meta, at, "name", out.name);
  d.StringMap(meta, at, "labels", out.labels);
  d.StringMap(meta, at, "annotations", out.annotations);
}

void DecodeTemplate(Decoder& d, const Json* o, const std::string& path, ObjectTemplate& out) {
  DecodeTemplateMeta(d, o, path, out.metadata);
  d.Object(o, path, "spec", out.spec);
}

void DecodeTls(Decoder& d, const Json* security, EtcdTlsSpec& out) {
  const std::string at = "spec.security.tls";
  const Json* tls = d.Member(security, "spec.security", "tls");
  d.String(tls, at, "peerTrustedCASecret", out.peer_trusted_ca_secret);
  d.String(tls, at, "peerSecret", out.peer_secret);
  d.String(tls, at, "serverTrustedCASecret", out.server_trusted_ca_secret);
  d.String(tls, at, "serverSecret", out.server_secret);
  d.String(tls, at, "clientTrustedCASecret", out.client_trusted_ca_secret);
  d.String(tls, at, "clientSecret", out.client_secret);
  d.Bool(tls, at, "managed", out.managed);
}

void DecodeStorage(Decoder& d, const Json* spec, EtcdStorageSpec& out) {
  const Json* storage = d.Member(spec, "spec", "storage");
  if (const Json* e = d.Member(storage, "spec.storage", "emptyDir")) {
    if (e->is_object()) {
      out.empty_dir = *e;
    } else {
      d.Fail("spec.storage.emptyDir", "want an object, got " + e->dump());
    }
  }
  const Json* vct = d.Member(storage, "spec.storage", "volumeClaimTemplate");
  DecodeTemplate(d, vct, "spec.storage.volumeClaimTemplate", out.volume_claim_template);
}

// A budget as the PodDisruptionBudget takes it: aenix admits counts written
// as strings ("0"), which policy/v1 refuses, so they become integers.
Json Budget(const Json& v) {
  if (!v.is_string()) return v;
  std::optional<int> count = CountString(v.get_ref<const std::string&>());
  return count.has_value() ? Json(*count) : v;
}

void DecodePdb(Decoder& d, const Json* spec, std::optional<EtcdPdbTemplate>& out) {
  const Json* pdb = d.Member(spec, "spec", "podDisruptionBudgetTemplate");
  if (pdb == nullptr) return;
  const std::string at = "spec.podDisruptionBudgetTemplate";
  out.emplace();
  DecodeTemplateMeta(d, pdb, at, out->metadata);
  const Json* pspec = d.Member(pdb, at, "spec");
  if (const Json* v = d.Member(pspec, at + ".spec", "minAvailable")) {
    out->min_available = Budget(*v);
  }
  if (const Json* v = d.Member(pspec, at + ".spec", "maxUnavailable")) {
    out->max_unavailable = Budget(*v);
  }
}

void DecodeSpec(Decoder& d, const Json* spec, EtcdClusterSpec& out) {
  d.Int32(spec, "spec", "replicas", out.replicas);
  d.StringMap(spec, "spec", "options", out.options);
  DecodeStorage(d, spec, out.storage);
  DecodeTemplate(d, d.Member(spec, "spec", "podTemplate"), "spec.podTemplate", out.pod_template);
  DecodeTemplate(d, d.Member(spec, "spec", "serviceTemplate"), "spec.serviceTemplate",
                 out.service_template);
  DecodeTemplateMeta(d, d.Member(spec, "spec", "headlessServiceTemplate"),
                     "spec.headlessServiceTemplate", out.headless_service_metadata);
  DecodePdb(d, spec, out.pdb_template);
  const Json* security = d.Member(spec, "spec", "security");
  d.Bool(security, "spec.security", "enableAuth", out.security.enable_auth);
  DecodeTls(d, security, out.security.tls);
  const Json* np = d.Member(spec, "spec", "networkPolicy");
  d.Bool(np, "spec.networkPolicy", "enabled", out.network_policy.enabled);
  d.Array(np, "spec.networkPolicy", "clientFrom", out.network_policy.client_from);
  const Json* restore = d.Member(d.Member(spec, "spec", "bootstrap"), "spec.bootstrap", "restore");
  if (const Json* source = d.Member(restore, "spec.bootstrap.restore", "source")) {
    std::vector<FieldError> errors;
    out.restore_source = DecodeBackupDestination(source, "spec.bootstrap.restore.source", errors);
    for (FieldError& e : errors) d.Fail(std::move(e.field), std::move(e.message));
  }
}

void DecodeCondition(Decoder& d, const Json& c, const std::string& at, Condition& out) {
  d.String(&c, at, "type", out.type);
  d.String(&c, at, "status", out.status);
  d.String(&c, at, "reason", out.reason);
  d.String(&c, at, "message", out.message);
  d.Int64(&c, at, "observedGeneration", out.observed_generation);
  d.String(&c, at, "lastTransitionTime", out.last_transition_time);
}

void DecodeMember(Decoder& d, const Json& m, const std::string& at, EtcdMemberStatus& out) {
  d.String(&m, at, "name", out.name);
  d.String(&m, at, "id", out.id);
  d.String(&m, at, "peerURL", out.peer_url);
  d.String(&m, at, "clientURL", out.client_url);
  d.Bool(&m, at, "isLearner", out.is_learner);
  d.Bool(&m, at, "isLeader", out.is_leader);
  d.Bool(&m, at, "healthy", out.healthy);
  d.String(&m, at, "version", out.version);
  d.String(&m, at, "dataUID", out.data_uid);
}

// Status is written by Quorum only; a malformed list entry is skipped
// rather than blocking the reconcile that would rewrite it.
void DecodeStatus(Decoder& d, const Json* status, EtcdClusterStatus& out) {
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  d.Int32(status, "status", "readyReplicas", out.ready_replicas);
  d.Int32(status, "status", "replicas", out.replicas);
  d.String(status, "status", "selector", out.selector);
  d.String(status, "status", "leader", out.leader);
  d.String(status, "status", "clientEndpoint", out.client_endpoint);
  d.String(status, "status", "clientSecretName", out.client_secret_name);
  d.String(status, "status", "authSecretName", out.auth_secret_name);
  d.String(status, "status", "lowestVersion", out.lowest_version);
  if (const Json* since = d.Member(status, "status", "minorSince")) {
    EtcdClusterStatus::MinorSince m;
    d.String(since, "status.minorSince", "minor", m.minor);
    d.Int64(since, "status.minorSince", "raftIndex", m.raft_index);
    out.minor_since = m;
  }
  const Json* conditions = d.Member(status, "status", "conditions");
  for (size_t i = 0; conditions != nullptr && conditions->is_array() && i < conditions->size();
       ++i) {
    if (!(*conditions)[i].is_object()) continue;
    DecodeCondition(d, (*conditions)[i], "status.conditions[" + std::to_string(i) + "]",
                    out.conditions.emplace_back());
  }
  const Json* members = d.Member(status, "status", "members");
  for (size_t i = 0; members != nullptr && members->is_array() && i < members->size(); ++i) {
    if (!(*members)[i].is_object()) continue;
    DecodeMember(d, (*members)[i], "status.members[" + std::to_string(i) + "]",
                 out.members.emplace_back());
  }
}

Json MetaJson(const TemplateMeta& m) {
  Json out = Json::object();
  if (!m.name.empty()) out["name"] = m.name;
  if (!m.labels.empty()) out["labels"] = m.labels;
  if (!m.annotations.empty()) out["annotations"] = m.annotations;
  return out;
}

Json TemplateJson(const ObjectTemplate& t) {
  Json out = Json::object();
  if (Json meta = MetaJson(t.metadata); !meta.empty()) out["metadata"] = meta;
  if (!t.spec.empty()) out["spec"] = t.spec;
  return out;
}

}  // namespace

absl::StatusOr<EtcdCluster> DecodeEtcdCluster(const Json& obj) {
  Decoder d;
  EtcdCluster out;
  if (!obj.is_object()) return absl::InvalidArgumentError("an EtcdCluster must be a JSON object");
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

absl::StatusOr<EtcdCluster> ParseEtcdCluster(const Json& obj) {
  Json defaulted = obj;
  DefaultEtcdCluster(defaulted);
  if (std::vector<FieldError> errors = ValidateEtcdCluster(defaulted, nullptr); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  return DecodeEtcdCluster(defaulted);
}

Json ToJson(const EtcdClusterSpec& spec) {
  Json out = {{"replicas", spec.replicas}};
  if (!spec.options.empty()) out["options"] = spec.options;
  Json storage = Json::object();
  if (spec.storage.empty_dir) {
    storage["emptyDir"] = *spec.storage.empty_dir;
  } else {
    storage["volumeClaimTemplate"] = TemplateJson(spec.storage.volume_claim_template);
  }
  out["storage"] = storage;
  if (Json t = TemplateJson(spec.pod_template); !t.empty()) out["podTemplate"] = t;
  if (Json t = TemplateJson(spec.service_template); !t.empty()) out["serviceTemplate"] = t;
  if (Json m = MetaJson(spec.headless_service_metadata); !m.empty()) {
    out["headlessServiceTemplate"] = {{"metadata", m}};
  }
  if (spec.pdb_template) {
    Json pdb = Json::object();
    if (Json m = MetaJson(spec.pdb_template->metadata); !m.empty()) pdb["metadata"] = m;
    Json pspec = Json::object();
    if (spec.pdb_template->min_available) pspec["minAvailable"] = *spec.pdb_template->min_available;
    if (spec.pdb_template->max_unavailable) {
      pspec["maxUnavailable"] = *spec.pdb_template->max_unavailable;
    }
    pdb["spec"] = pspec;
    out["podDisruptionBudgetTemplate"] = pdb;
  }
  const EtcdTlsSpec& t = spec.security.tls;
  Json tls = Json::object();
  for (const auto& [key, value] : {std::pair{"peerTrustedCASecret", &t.peer_trusted_ca_secret},
                                   {"peerSecret", &t.peer_secret},
                                   {"serverTrustedCASecret", &t.server_trusted_ca_secret},
                                   {"serverSecret", &t.server_secret},
                                   {"clientTrustedCASecret", &t.client_trusted_ca_secret},
                                   {"clientSecret", &t.client_secret}}) {
    if (!value->empty()) tls[key] = *value;
  }
  if (t.managed) tls["managed"] = true;
  Json security = Json::object();
  if (spec.security.enable_auth) security["enableAuth"] = true;
  if (!tls.empty()) security["tls"] = tls;
  if (!security.empty()) out["security"] = security;
  if (spec.restore_source) {
    out["bootstrap"] = {{"restore", {{"source", ToJson(*spec.restore_source)}}}};
  }
  Json np = Json::object();
  if (!spec.network_policy.enabled) np["enabled"] = false;
  if (!spec.network_policy.client_from.is_null()) {
    np["clientFrom"] = spec.network_policy.client_from;
  }
  if (!np.empty()) out["networkPolicy"] = np;
  return out;
}

Json ToJson(const Condition& c) {
  return {{"type", c.type},
          {"status", c.status},
          {"reason", c.reason},
          {"message", c.message},
          {"observedGeneration", c.observed_generation},
          {"lastTransitionTime", c.last_transition_time}};
}

Json ToJson(const EtcdClusterStatus& s) {
  Json conditions = Json::array();
  for (const Condition& c : s.conditions) conditions.push_back(ToJson(c));
  Json members = Json::array();
  for (const EtcdMemberStatus& m : s.members) {
    Json j = {{"name", m.name},          {"id", m.id},
              {"peerURL", m.peer_url},   {"isLearner", m.is_learner},
              {"isLeader", m.is_leader}, {"healthy", m.healthy}};
    if (!m.client_url.empty()) j["clientURL"] = m.client_url;
    if (!m.version.empty()) j["version"] = m.version;
    if (!m.data_uid.empty()) j["dataUID"] = m.data_uid;
    members.push_back(std::move(j));
  }
  Json out = {{"observedGeneration", s.observed_generation},
              {"conditions", conditions},
              {"readyReplicas", s.ready_replicas},
              {"replicas", s.replicas},
              {"members", members},
              {"clientEndpoint", s.client_endpoint}};
  if (!s.selector.empty()) out["selector"] = s.selector;
  if (!s.leader.empty()) out["leader"] = s.leader;
  if (!s.client_secret_name.empty()) out["clientSecretName"] = s.client_secret_name;
  if (!s.auth_secret_name.empty()) out["authSecretName"] = s.auth_secret_name;
  if (!s.lowest_version.empty()) out["lowestVersion"] = s.lowest_version;
  if (s.minor_since) {
    out["minorSince"] = {{"minor", s.minor_since->minor}, {"raftIndex", s.minor_since->raft_index}};
  }
  return out;
}

const Condition* FindCondition(const EtcdClusterStatus& status, const std::string& type) {
  for (const Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool HasQuorum(const EtcdClusterStatus& status) {
  const auto is_true = [&](const char* type) {
    const Condition* c = FindCondition(status, type);
    return c != nullptr && c->status == "True";
  };
  if (is_true("Ready")) return true;
  if (!is_true("Initialized")) return false;
  int voters = 0, healthy = 0;
  for (const EtcdMemberStatus& m : status.members) {
    if (m.is_learner) continue;
    ++voters;
    if (m.healthy) ++healthy;
  }
  return voters > 0 && healthy * 2 > voters;
}

ManagedTlsNames ManagedTlsNamesOf(const std::string& cluster) {
  return {.peer_ca = cluster + "-peer-ca",
          .peer = cluster + "-peer-tls",
          .server_ca = cluster + "-server-ca",
          .server = cluster + "-server-tls",
          .client = cluster + "-client-tls"};
}

EtcdTlsSpec EffectiveTls(const EtcdCluster& cluster) {
  const EtcdTlsSpec& tls = cluster.spec.security.tls;
  if (!tls.managed) return tls;
  const ManagedTlsNames n = ManagedTlsNamesOf(cluster.metadata.name);
  // Each leaf Secret carries its CA as ca.crt: the peer one is also the peer
  // CA bundle, the server one also the client CA bundle (one CA signs the
  // client port's server and client certificates).
  return {.peer_trusted_ca_secret = n.peer,
          .peer_secret = n.peer,
          .server_trusted_ca_secret = n.server,
          .server_secret = n.server,
          .client_trusted_ca_secret = n.server,
          .client_secret = n.client,
          .managed = true};
}

std::string ServerCaSecret(const EtcdCluster& cluster) {
  const EtcdTlsSpec tls = EffectiveTls(cluster);
  return tls.server_trusted_ca_secret.empty() ? tls.server_secret : tls.server_trusted_ca_secret;
}

std::string ClientCaKeySecret(const EtcdCluster& cluster) {
  return cluster.spec.security.tls.managed ? ManagedTlsNamesOf(cluster.metadata.name).server_ca
                                           : cluster.spec.security.tls.client_trusted_ca_secret;
}

}  // namespace quorum::api
