#include "src/patroni/config.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/yaml_writer.h"

namespace quorum::patroni {
namespace {

using nlohmann::json;

// RFC 7386-style deep merge without deletions: objects merge key by key,
// anything else in `patch` replaces what `target` has.
void DeepMerge(json& target, const json& patch) {
  if (!patch.is_object() || !target.is_object()) {
    target = patch;
    return;
  }
  for (const auto& [key, value] : patch.items()) {
    if (value.is_object() && target.contains(key) && target[key].is_object()) {
      DeepMerge(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

json StringMap(const std::map<std::string, std::string>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

json KubernetesSection(const KubernetesDcs& k) {
  json s = json::object();
  s["namespace"] = k.namespace_;
  s["labels"] = StringMap(k.labels);
  s["scope_label"] = k.scope_label;
  s["role_label"] = k.role_label;
  s["leader_label_value"] = k.leader_label_value;
  s["follower_label_value"] = k.follower_label_value;
  // A standby leader is routed like a primary (API.md).
  s["standby_leader_label_value"] = k.leader_label_value;
  s["use_endpoints"] = k.use_endpoints;
  // Named like the Service port, so the leader's Endpoints match a
  // selectorless primary Service (an unnamed port matches nothing there).
  if (!k.port_name.empty()) {
    s["ports"] = json::array({{{"name", k.port_name}, {"port", k.port}}});
  }
  return s;
}

json Etcd3Section(const EtcdDcs& e) {
  json s = json::object();
  s["hosts"] = e.hosts;
  s["protocol"] = e.protocol;
  if (!e.cacert.empty()) s["cacert"] = e.cacert;
  if (!e.cert.empty()) s["cert"] = e.cert;
  if (!e.key.empty()) s["key"] = e.key;
  return s;
}

}  // namespace

json DynamicConfig(const ConfigInput& in) {
  json dcs_pg = json::object();
  dcs_pg["use_pg_rewind"] = in.use_pg_rewind;
  dcs_pg["use_slots"] = true;
  dcs_pg["parameters"] = StringMap(in.parameters);
  dcs_pg["pg_hba"] = in.pg_hba.empty() ? json::array() : json(in.pg_hba);
  // check_timeline: a member still on a timeline older than the cluster's
  // (one that had not yet followed the last promotion, e.g. the old primary
  // right after a switchover) never wins the leader race. Without it, a new
  // primary stopped seconds after its promotion lets that member take over
  // and pick the same timeline number for a different history: what the new
  // primary acknowledged is lost and it can no longer rejoin (seen in the
  // pooler e2e). The cost is Patroni's: with no member on the cluster's
  // timeline, nobody is promoted until one returns.
  json bootstrap_dcs = {{"ttl", in.ttl},
                        {"loop_wait", in.loop_wait},
                        {"retry_timeout", in.retry_timeout},
                        {"check_timeline", true},
                        {"postgresql", dcs_pg}};
  // With the etcd DCS, an etcd outage must not demote a primary that every
  // member can still reach (Patroni's failsafe mode); the user may turn it off
  // through dynamicConfiguration.
  if (std::holds_alternative<EtcdDcs>(in.dcs)) bootstrap_dcs["failsafe_mode"] = true;
  if (in.dynamic_configuration.is_object()) DeepMerge(bootstrap_dcs, in.dynamic_configuration);
  return bootstrap_dcs;
}

json BuildConfig(const ConfigInput& in) {
  json bootstrap_dcs = DynamicConfig(in);

  json auth = json::object();
  auth["superuser"] = {{"username", in.superuser_username}};
  auth["replication"] = {{"username", in.replication_username}};
  if (in.use_pg_rewind) auth["rewind"] = {{"username", in.rewind_username}};
  json local_parameters = StringMap(in.local_parameters);
  if (in.tls.has_value()) {
    local_parameters["ssl"] = "on";
    local_parameters["ssl_cert_file"] = in.tls->cert_file;
    local_parameters["ssl_key_file"] = in.tls->key_file;
    local_parameters["ssl_ca_file"] = in.tls->ca_file;
    for (const char* user : {"replication", "rewind"}) {
      if (!auth.contains(user)) continue;
      auth[user]["sslmode"] = in.tls->member_sslmode;
      auth[user]["sslrootcert"] = in.tls->ca_file;
    }
  }

  json pg = json::object();
  pg["listen"] = absl::StrCat(in.listen_host, ":", in.postgres_port);
  pg["data_dir"] = in.data_dir;
  pg["bin_dir"] = in.bin_dir;
  pg["pgpass"] = in.pgpass;
  pg["authentication"] = auth;
  // A replica that cannot rejoin the new primary's timeline (pg_rewind fails,
  // or its WAL went past the fork where pg_rewind cannot be used) is cloned
  // again from the primary instead of retrying forever. What it loses is what
  // it alone had: WAL past the fork, which the cluster gave up at the failover.
  pg["remove_data_directory_on_rewind_failure"] = true;
  pg["remove_data_directory_on_diverged_timelines"] = true;
  if (!local_parameters.empty()) pg["parameters"] = local_parameters;
  if (!in.callback_script.empty()) {
    pg["callbacks"] = {{"on_start", in.callback_script},
                       {"on_role_change", in.callback_script},
                       {"on_stop", in.callback_script}};
  }

  json out = json::object();
  out["scope"] = in.scope;
  // Patroni copies the top-level `namespace` over the DCS section's own
  // (dcs/__init__.py get_dcs), so with the kubernetes DCS it must be the
  // Kubernetes namespace; objects there are isolated per namespace anyway.
  const auto* kdcs = std::get_if<KubernetesDcs>(&in.dcs);
  out["namespace"] = kdcs != nullptr ? kdcs->namespace_ : in.key_namespace;
  out["restapi"] = {{"listen", absl::StrCat(in.listen_host, ":", in.restapi_port)}};
  if (in.restapi_tls.has_value()) {
    const RestApiTls& t = *in.restapi_tls;
    out["restapi"]["certfile"] = t.cert_file;
    out["restapi"]["keyfile"] = t.key_file;
    out["restapi"]["cafile"] = t.ca_file;
    if (t.verify_client) out["restapi"]["verify_client"] = "optional";
    out["ctl"] = {{"cacert", t.ca_file}, {"certfile", t.cert_file}, {"keyfile", t.key_file}};
  }
  out["bootstrap"] = {{"dcs", bootstrap_dcs},
                      {"initdb", json::array({json{{"encoding", "UTF8"}}, "data-checksums"})}};
  if (!in.restore_command.empty()) {
    out["bootstrap"]["method"] = "pgbackrest";
    out["bootstrap"]["pgbackrest"] = {{"command", in.restore_command},
                                      {"keep_existing_recovery_conf", true},
                                      {"no_params", true}};
  }
  out["postgresql"] = pg;
  out["tags"] = json::object();
  for (const auto& [k, v] : in.tags) out["tags"][k] = v;
  if (const auto* k = std::get_if<KubernetesDcs>(&in.dcs)) {
    out["kubernetes"] = KubernetesSection(*k);
  } else {
    out["etcd3"] = Etcd3Section(std::get<EtcdDcs>(in.dcs));
  }
  return out;
}

std::string RenderConfig(const ConfigInput& in) { return api::ToYaml(BuildConfig(in)); }

std::vector<EnvVar> PodEnv(const ConfigInput& in) {
  std::vector<EnvVar> env = {
      {"POD_NAME", EnvSource::kPodName, ""},
      {"POD_NAMESPACE", EnvSource::kPodNamespace, ""},
      {"POD_IP", EnvSource::kPodIp, ""},
      {"PATRONI_NAME", EnvSource::kLiteral, "$(POD_NAME)"},
      {"PATRONI_RESTAPI_CONNECT_ADDRESS", EnvSource::kLiteral,
       absl::StrCat(in.restapi_connect_host, ":", in.restapi_port)},
      {"PATRONI_POSTGRESQL_CONNECT_ADDRESS", EnvSource::kLiteral,
       absl::StrCat("$(POD_IP):", in.postgres_port)},
      {"PATRONI_SUPERUSER_PASSWORD", EnvSource::kSuperuserPassword, ""},
      {"PATRONI_REPLICATION_PASSWORD", EnvSource::kReplicationPassword, ""},
  };
  if (in.use_pg_rewind) {
    env.push_back({"PATRONI_REWIND_PASSWORD", EnvSource::kRewindPassword, ""});
  }
  if (std::holds_alternative<KubernetesDcs>(in.dcs)) {
    env.push_back({"PATRONI_KUBERNETES_POD_IP", EnvSource::kLiteral, "$(POD_IP)"});
  } else if (const EtcdDcs& e = std::get<EtcdDcs>(in.dcs); e.auth) {
    env.push_back({"PATRONI_ETCD3_PROTOCOL", EnvSource::kLiteral, e.protocol});
    env.push_back({"PATRONI_ETCD3_USERNAME", EnvSource::kEtcdUsername, ""});
    env.push_back({"PATRONI_ETCD3_PASSWORD", EnvSource::kEtcdPassword, ""});
  }
  if (!in.python_path.empty()) env.push_back({"PYTHONPATH", EnvSource::kLiteral, in.python_path});
  if (in.restapi_auth) {
    env.push_back({"PATRONI_RESTAPI_USERNAME", EnvSource::kRestApiUsername, ""});
    env.push_back({"PATRONI_RESTAPI_PASSWORD", EnvSource::kRestApiPassword, ""});
  }
  return env;
}

}  // namespace quorum::patroni
