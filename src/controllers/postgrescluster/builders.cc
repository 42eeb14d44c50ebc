#include "src/controllers/postgrescluster/builders.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_owned_config.h"
#include "src/base/json_access.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/controllers/postgrescluster/major_upgrade.h"
#include "src/controllers/postgrescluster/monitoring.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/patroni/readiness.h"
#include "src/patroni/role.h"
#include "src/patroni/role_callback.h"
#include "src/patroni/start_hook.h"

namespace quorum::postgrescluster {
namespace {

int Major(const PostgresCluster& cluster) { return cluster.spec.postgres_version; }

std::string Image(const PostgresCluster& cluster) {
  std::string image = cluster.spec.image;
  if (image.empty()) image = api::DefaultPostgresImage(Major(cluster)).value_or("");
  return image;
}

Json SecretEnv(const std::string& name, const std::string& secret, const std::string& key) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

Json FieldEnv(const std::string& name, const std::string& path) {
  return {{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}};
}

Json PodEnvJson(const PostgresCluster& cluster, const patroni::ConfigInput& input,
                const DcsResolution& dcs) {
  const Names n = NamesOf(cluster);
  Json env = Json::array();
  for (const patroni::EnvVar& v : patroni::PodEnv(input)) {
    switch (v.source) {
      case patroni::EnvSource::kLiteral:
        env.push_back({{"name", v.name}, {"value", v.value}});
        break;
      case patroni::EnvSource::kPodName:
        env.push_back(FieldEnv(v.name, "metadata.name"));
        break;
      case patroni::EnvSource::kPodNamespace:
        env.push_back(FieldEnv(v.name, "metadata.namespace"));
        break;
      case patroni::EnvSource::kPodIp:
        env.push_back(FieldEnv(v.name, "status.podIP"));
        break;
      case patroni::EnvSource::kSuperuserPassword:
      case patroni::EnvSource::kRewindPassword:  // pg_rewind runs as the superuser
        env.push_back(SecretEnv(v.name, n.superuser_secret, "password"));
        break;
      case patroni::EnvSource::kReplicationPassword:
        env.push_back(SecretEnv(v.name, n.replication_secret, "password"));
        break;
      case patroni::EnvSource::kEtcdUsername:
        env.push_back(SecretEnv(v.name, dcs.auth_secret, "username"));
        break;
      case patroni::EnvSource::kEtcdPassword:
        env.push_back(SecretEnv(v.name, dcs.auth_secret, "password"));
        break;
      case patroni::EnvSource::kRestApiUsername:
        env.push_back(SecretEnv(v.name, n.restapi_secret, "username"));
        break;
      case patroni::EnvSource::kRestApiPassword:
        env.push_back(SecretEnv(v.name, n.restapi_secret, "password"));
        break;
    }
  }
  return env;
}

Json ServicePorts(bool with_patroni) {
  Json ports = Json::array({{{"name", kPostgresPortName},
                             {"port", kPostgresPort},
                             {"targetPort", kPostgresPort},
                             {"protocol", "TCP"}}});
  if (with_patroni) {
    ports.push_back({{"name", "patroni"},
                     {"port", kPatroniPort},
                     {"targetPort", kPatroniPort},
                     {"protocol", "TCP"}});
  }
  return ports;
}

Json Service(const PostgresCluster& cluster, const std::string& name, Json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(cluster, name)},
          {"spec", std::move(spec)}};
}

}  // namespace

std::string MemberImage(const PostgresCluster& cluster) { return Image(cluster); }

Json PostgresPodSecurityContext() {
  return {{"runAsNonRoot", true},
          {"runAsUser", kPostgresUid},
          {"runAsGroup", kPostgresUid},
          {"fsGroup", kPostgresUid},
          // Only when the volume's root is not the group's yet (a new
          // volume): a recursive change on every mount leaves the data
          // directory group-writable, and PostgreSQL refuses to start
          // on it (found on a real kubelet, re-creating a member pod).
          {"fsGroupChangePolicy", "OnRootMismatch"},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}};
}

std::string DataDir(int major) { return absl::StrCat(kDataMount, "/pg", major); }
std::string BinDir(int major) { return absl::StrCat("/usr/lib/postgresql/", major, "/bin"); }

namespace {

// One rule of spec.authentication as a pg_hba line (validated: every token is
// one PostgreSQL reads unquoted).
std::string HbaLine(const api::PostgresHbaRule& rule) {
  auto names = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("all") : absl::StrJoin(v, ",");
  };
  std::string line =
      absl::StrCat(rule.connection, " ", names(rule.databases), " ", names(rule.users));
  if (rule.connection != "local") {
    absl::StrAppend(&line, " ", rule.address.empty() ? "all" : rule.address);
  }
  absl::StrAppend(&line, " ", rule.method);
  for (const auto& [key, value] : rule.options) absl::StrAppend(&line, " ", key, "=", value);
  return line;
}

}  // namespace

std::vector<std::string> PgHba(const PostgresCluster& cluster) {
  const std::string own =
      std::string(api::kSuperuserName) + "," + std::string(api::kReplicationUserName);
  std::vector<std::string> hba;
  // pgBackRest runs as the OS user postgres in the pod.
  if (cluster.spec.backups.pgbackrest.has_value()) {
    hba.push_back("local all " + std::string(api::kSuperuserName) + " peer");
  }
  // Quorum's own roles first, so that no rule of the user's can lock out
  // Patroni, replication or the operator.
  hba.push_back("local all " + own + " scram-sha-256");
  hba.push_back("hostssl replication " + std::string(api::kReplicationUserName) +
                " all scram-sha-256");
  hba.push_back("hostssl all " + own + " all scram-sha-256");
  // spec.proxy.pgBouncer: PgBouncer's auth_query role, to the one database
  // that holds its lookup function (pgbouncer_sql.h).
  if (cluster.spec.proxy.pgbouncer.has_value()) {
    hba.push_back("hostssl postgres " + std::string(api::kPoolerUserName) + " all scram-sha-256");
  }
  // spec.monitoring.exporter: its role from the pod's loopback only.
  for (std::string& line : MonitorHba(cluster)) hba.push_back(std::move(line));
  for (const api::PostgresHbaRule& rule : cluster.spec.authentication.rules) {
    hba.push_back(HbaLine(rule));
  }
  hba.push_back("local all all scram-sha-256");
  hba.push_back("hostssl all all all scram-sha-256");
  // Without a rule for them, connections without TLS are refused ("no
  // pg_hba.conf entry ... no encryption"); replication never gets one.
  if (cluster.spec.tls.allow_plaintext) hba.push_back("host all all all scram-sha-256");
  return hba;
}

patroni::ConfigInput BuildPatroniInput(const PostgresCluster& cluster, const DcsResolution& dcs) {
  const api::PatroniSpec& p = cluster.spec.patroni;
  patroni::ConfigInput in;
  in.scope = NamesOf(cluster).cluster;
  in.key_namespace = KeyNamespace(cluster);
  in.ttl = p.leader_lease_duration_seconds;
  in.loop_wait = p.sync_period_seconds;
  in.retry_timeout = p.retry_timeout_seconds;
  in.dynamic_configuration = p.dynamic_configuration;
  // Keys Quorum owns are never applied (admission refuses new ones and warns
  // about older ones): Quorum's own values below hold.
  api::StripOwnedDynamicConfiguration(in.dynamic_configuration);
  in.parameters = {{"password_encryption", "scram-sha-256"},
                   {"wal_level", "replica"},
                   {"hot_standby", "on"},
                   {"wal_log_hints", "on"},
                   {"max_wal_senders", "10"},
                   {"max_replication_slots", "10"}};
  in.pg_hba = PgHba(cluster);
  if (cluster.spec.backups.pgbackrest.has_value()) {
    // Every WAL segment to every repository; a quiet primary switches segments
    // at least once a minute, so the recoverable window trails by at most
    // that (dynamicConfiguration may change archive_timeout).
    in.parameters["archive_mode"] = "on";
    in.parameters["archive_timeout"] = "60s";
    const std::string options = patroni::CommandOptions(
        kPgBackRestConfigFile, patroni::kPgBackRestIncludeDir, kPgBackRestStanza);
    in.parameters["archive_command"] = patroni::ArchiveCommand(kPgBackRestArchiveScript, options);
    // No restore_command for replicas: they stream from the primary, which
    // keeps their WAL in replication slots, and a standby asks the archive
    // first for every segment it replays, so an unreachable repository would
    // hold each of them up for pgBackRest's whole timeout (seen on the demo).
  }
  in.restore_command = PgBackRestRestoreCommand(cluster);
  in.local_parameters = {{"unix_socket_directories", kTmpDir}};
  in.use_pg_rewind = true;
  in.data_dir = DataDir(Major(cluster));
  in.bin_dir = BinDir(Major(cluster));
  in.pgpass = std::string(kTmpDir) + "/pgpass";
  // The callback labels the pod through the API; the kubernetes DCS labels
  // it itself, and pods without API access leave labels to the operator.
  if (UsesEtcd(cluster) && PodsHaveApiAccess(cluster)) in.callback_script = kCallbackFile;
  // Patroni's etcd module caches names for ten minutes (start_hook.h).
  if (UsesEtcd(cluster)) in.python_path = kConfigDir;
  in.superuser_username = std::string(api::kSuperuserName);
  in.replication_username = std::string(api::kReplicationUserName);
  in.rewind_username = std::string(api::kSuperuserName);
  in.dcs = dcs.dcs;
  const std::string tls_dir = kPostgresTlsDir;
  in.tls = patroni::PostgresTls{.cert_file = tls_dir + "/tls.crt",
                                .key_file = tls_dir + "/tls.key",
                                .ca_file = tls_dir + "/ca.crt"};
  in.restapi_auth = true;
  // The REST API serves the same certificate (its wildcard names every pod);
  // members and patronictl call each other by pod DNS name. Unsafe calls
  // need a client certificate from the cluster's CA (the operator's, or a
  // member's own) — except with a customSecret, whose CA key Quorum lacks to
  // issue the operator one and whose certificate may not allow clientAuth.
  in.restapi_tls = patroni::RestApiTls{.cert_file = tls_dir + "/tls.crt",
                                       .key_file = tls_dir + "/tls.key",
                                       .ca_file = tls_dir + "/ca.crt",
                                       .verify_client = cluster.spec.tls.custom_secret.empty()};
  in.restapi_connect_host = MemberDnsName(cluster, "$(POD_NAME)");
  return in;
}

Json DesiredDynamicConfig(const PostgresCluster& cluster, const DcsResolution& dcs) {
  Json desired = patroni::DynamicConfig(BuildPatroniInput(cluster, dcs));
  Json dynamic = cluster.spec.patroni.dynamic_configuration;
  for (const api::OwnedConfigKey& key : api::StripOwnedDynamicConfiguration(dynamic)) {
    Json* at = &desired;
    for (size_t i = 0; at != nullptr && i + 1 < key.path.size(); ++i) {
      at = at->is_object() && at->contains(key.path[i]) ? &(*at)[key.path[i]] : nullptr;
    }
    if (at != nullptr && at->is_object() && !at->contains(key.path.back())) {
      (*at)[key.path.back()] = nullptr;
    }
  }
  return desired;
}

Json BuildConfigMap(const PostgresCluster& cluster, const patroni::ConfigInput& input) {
  Json data = {
      {"patroni.yaml", patroni::RenderConfig(input)},
      {std::string(patroni::kRoleCallbackFileName), std::string(patroni::RoleCallbackScript())}};
  if (!input.python_path.empty()) {
    data[std::string(patroni::kStartHookFileName)] = std::string(patroni::StartHookScript());
  }
  if (std::optional<patroni::PgBackRestInput> pgbr = BuildPgBackRestInput(cluster)) {
    data[std::string(patroni::kPgBackRestConfigFileName)] = patroni::RenderPgBackRestConfig(*pgbr);
    data[std::string(patroni::kArchiveScriptFileName)] = std::string(patroni::ArchiveScript());
    data[std::string(patroni::kServerScriptFileName)] = std::string(patroni::ServerScript());
    data[std::string(patroni::kPgBackRestServerConfigFileName)] =
        patroni::RenderPgBackRestServerConfig(*pgbr);
    if (HasVolumeRepos(cluster)) {
      data["pgbackrest-repo-host.conf"] = patroni::RenderPgBackRestRepoHostConfig(*pgbr);
      data["pgbackrest-repo.conf"] =
          patroni::RenderPgBackRestConfig(*BuildPgBackRestInput(cluster, ReposSide::kLocal));
    }
  }
  if (std::optional<patroni::PgBackRestInput> src = BuildPgBackRestRestoreInput(cluster)) {
    data["pgbackrest-restore.conf"] = patroni::RenderPgBackRestConfig(*src);
  }
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", Metadata(cluster, NamesOf(cluster).config_map)},
          {"data", data}};
}

namespace {

// The member's pgBackRest TLS server (the backup Jobs' way in, see
// src/patroni/pgbackrest.h): the data directory read-only, PostgreSQL's
// socket directory, the server certificate and the clients' CA. Not the
// user's configuration Secrets: the server never touches a repository.
Json PgBackRestServerContainer(const PostgresCluster& cluster,
                               const patroni::PgBackRestTlsServer& server) {
  return {{"name", kPgBackRestContainerName},
          {"image", Image(cluster)},
          {"command", Json::array({kPgBackRestServerScript, server.cert_file, server.key_file,
                                   server.ca_file})},
          {"env",
           Json::array({{{"name", "PGBACKREST_CONFIG"}, {"value", kPgBackRestServerConfigFile}}})},
          {"ports", Json::array({{{"name", "pgbackrest"}, {"containerPort", server.port}}})},
          {"volumeMounts",
           Json::array({{{"name", "config"}, {"mountPath", kConfigDir}, {"readOnly", true}},
                        {{"name", "pgdata"}, {"mountPath", kDataMount}, {"readOnly", true}},
                        {{"name", "tmp"}, {"mountPath", kTmpDir}},
                        {{"name", "tls"}, {"mountPath", kPostgresTlsDir}, {"readOnly", true}},
                        {{"name", "pgbackrest-client-ca"},
                         {"mountPath", kPgBackRestClientCaDir},
                         {"readOnly", true}}})},
          {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}}}},
          {"securityContext",
           {{"allowPrivilegeEscalation", false},
            {"readOnlyRootFilesystem", true},
            {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
}

}  // namespace

// NOLINTNEXTLINE(readability-function-size): one StatefulSet literal, like its manifest
Json BuildStatefulSet(const PostgresCluster& cluster, const api::PostgresInstanceSet& set,
                      const patroni::ConfigInput& input, const DcsResolution& dcs) {
  const Names n = NamesOf(cluster);
  const std::string& set_name = set.name;
  const std::string name = StatefulSetName(cluster, set_name);
  const bool api_access = PodsHaveApiAccess(cluster);

  Json pod_labels = LabelsJson(CommonLabels(cluster));
  pod_labels[std::string(api::kInstanceSetLabel)] = set_name;
  Json pod_annotations = Json::object();
  // How the member serves its REST API, for the operator (tls.h).
  if (input.restapi_tls.has_value()) pod_labels[kRestSchemeLabel] = "https";
  for (const auto& [k, v] : set.metadata.labels) pod_labels.emplace(k, v);
  for (const auto& [k, v] : set.metadata.annotations) pod_annotations[k] = v;

  Json mounts = Json::array({{{"name", "config"}, {"mountPath", kConfigDir}, {"readOnly", true}},
                             {{"name", "pgdata"}, {"mountPath", kDataMount}},
                             {{"name", "tmp"}, {"mountPath", kTmpDir}}});
  Json volumes = Json::array(
      {{{"name", "config"}, {"configMap", {{"name", n.config_map}, {"defaultMode", 0555}}}},
       {{"name", "tmp"}, {"emptyDir", Json::object()}}});
  // The server certificate: root-owned files of group fsGroup, mode 0440,
  // which PostgreSQL accepts for a key (root-owned: no group write, nothing
  // for others). The kubelet swaps renewed files in place.
  mounts.push_back({{"name", "tls"}, {"mountPath", kPostgresTlsDir}, {"readOnly", true}});
  volumes.push_back(
      {{"name", "tls"},
       {"secret", {{"secretName", MountedTlsSecret(cluster)}, {"defaultMode", 0440}}}});
  if (!dcs.tls_secret.empty()) {
    mounts.push_back({{"name", "etcd-tls"}, {"mountPath", kEtcdTlsDir}, {"readOnly", true}});
    volumes.push_back({{"name", "etcd-tls"},
                       {"secret", {{"secretName", dcs.tls_secret}, {"defaultMode", 0440}}}});
  }
  // pgBackRest reads the files of the user's configuration Secrets (S3 keys,
  // a CA) from its include directory, the same way as the TLS files; so
  // does the restore of spec.dataSource, from its own.
  if (const auto& pgbr = cluster.spec.backups.pgbackrest) {
    mounts.push_back(PgBackRestSecretsMount("pgbackrest-config", patroni::kPgBackRestIncludeDir));
    volumes.push_back(PgBackRestSecretsVolume("pgbackrest-config", pgbr->configuration_secrets));
  }
  if (const auto& src = cluster.spec.data_source.pgbackrest) {
    mounts.push_back(PgBackRestSecretsMount("pgbackrest-restore", kPgBackRestRestoreIncludeDir));
    volumes.push_back(PgBackRestSecretsVolume("pgbackrest-restore", src->configuration_secrets));
  }
  // The kubelet does not check the REST API's certificate (HTTPS probes
  // never do); its requests stay on the node.
  const bool rest_https = input.restapi_tls.has_value();
  auto probe = [&](const char* path, int period, int failures) {
    return Json{
        {"httpGet",
         {{"path", path}, {"port", kPatroniPort}, {"scheme", rest_https ? "HTTPS" : "HTTP"}}},
        {"periodSeconds", period},
        {"timeoutSeconds", 5},
        {"failureThreshold", failures}};
  };
  Json container = {
      {"name", kContainerName},
      {"image", Image(cluster)},
      {"command", Json::array({"patroni", kConfigFile})},
      {"env", PodEnvJson(cluster, input, dcs)},
      {"ports", Json::array({{{"name", "postgresql"}, {"containerPort", kPostgresPort}},
                             {{"name", "patroni"}, {"containerPort", kPatroniPort}}})},
      // Ready: a primary that accepts writes, or a streaming replica; never
      // the leader while it is still read-only (src/patroni/readiness.h).
      {"readinessProbe",
       {{"exec",
         {{"command", patroni::ReadinessProbeCommand(kPatroniPort, rest_https, kDataMount)}}},
        {"periodSeconds", 5},
        {"timeoutSeconds", 5},
        {"failureThreshold", 3}}},
      {"livenessProbe", probe("/liveness", 10, 6)},
      {"volumeMounts", mounts},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
  if (set.resources.is_object() && !set.resources.empty()) container["resources"] = set.resources;
  // For a user's `pgbackrest info` in the pod; the commands PostgreSQL runs
  // name the file and stanza themselves.
  if (cluster.spec.backups.pgbackrest.has_value()) {
    container["env"].push_back({{"name", "PGBACKREST_CONFIG"}, {"value", kPgBackRestConfigFile}});
    container["env"].push_back({{"name", "PGBACKREST_CONFIG_INCLUDE_PATH"},
                                {"value", std::string(patroni::kPgBackRestIncludeDir)}});
    container["env"].push_back({{"name", "PGBACKREST_STANZA"}, {"value", kPgBackRestStanza}});
  }

  Json containers = Json::array({container});
  if (std::optional<patroni::PgBackRestInput> pgbr = BuildPgBackRestInput(cluster)) {
    volumes.push_back({{"name", "pgbackrest-client-ca"},
                       {"secret",
                        {{"secretName", n.pgbackrest_client_secret},
                         {"items", Json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})},
                         {"defaultMode", 0440}}}});
    containers.push_back(PgBackRestServerContainer(cluster, *pgbr->tls_server));
  }
  if (ExporterOn(cluster)) {  // spec.monitoring.exporter (monitoring.h)
    containers.push_back(ExporterContainer(cluster));
    volumes.push_back(ExporterVolume(cluster));
    // `kubectl exec/logs` without -c pick the database (added with the
    // exporter: on an earlier cluster it would restart the members).
    pod_annotations["kubectl.kubernetes.io/default-container"] = kContainerName;
  }
  // Volume repositories: PostgreSQL's archive_command and a restore reach
  // the repository host with the pgBackRest client certificate.
  if (HasVolumeRepos(cluster)) {
    volumes.push_back({{"name", "pgbackrest-client-tls"},
                       {"secret",
                        {{"secretName", n.pgbackrest_client_secret},
                         {"items", Json::array({{{"key", "tls.crt"}, {"path", "tls.crt"}},
                                                {{"key", "tls.key"}, {"path", "tls.key"}}})},
                         {"defaultMode", 0440}}}});
    containers[0]["volumeMounts"].push_back({{"name", "pgbackrest-client-tls"},
                                             {"mountPath", kPgBackRestClientTlsDir},
                                             {"readOnly", true}});
  }

  Json pod_spec = {{"containers", containers},
                   {"volumes", volumes},
                   {"automountServiceAccountToken", api_access},
                   {"terminationGracePeriodSeconds", 30},
                   {"securityContext", PostgresPodSecurityContext()}};
  // Named even without API access: the API server keeps the deprecated
  // `serviceAccount` field in step with `serviceAccountName`, so an apply that
  // merely drops the name (podAPIAccess turned off) gets the old one copied
  // back, and the StatefulSet cannot create pods once that account is gone.
  pod_spec["serviceAccountName"] = api_access ? n.service_account : "default";
  for (const auto& [field, value] :
       {std::pair{"affinity", &set.affinity},
        {"tolerations", &set.tolerations},
        {"topologySpreadConstraints", &set.topology_spread_constraints}}) {
    if (!value->is_null()) pod_spec[field] = *value;
  }

  Json pvc_meta = {{"name", "pgdata"}, {"labels", LabelsJson(InstanceSelector(cluster, set_name))}};
  Json metadata = Metadata(cluster, name);
  metadata["labels"][std::string(api::kInstanceSetLabel)] = set_name;
  Json template_meta = {{"labels", pod_labels}};
  if (!pod_annotations.empty()) template_meta["annotations"] = pod_annotations;
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", metadata},
          {"spec",
           {{"serviceName", n.pods_service},
            {"replicas", RestoreStopsMembers(cluster)
                             ? 0
                             : UpgradeReplicas(cluster, set.name).value_or(set.replicas)},
            {"podManagementPolicy", "Parallel"},
            // Patroni decides who leads; the operator restarts members itself
            // (replicas first), so the StatefulSet must not roll pods.
            {"updateStrategy", {{"type", "OnDelete"}}},
            {"selector", {{"matchLabels", LabelsJson(InstanceSelector(cluster, set_name))}}},
            {"template", {{"metadata", template_meta}, {"spec", pod_spec}}},
            {"persistentVolumeClaimRetentionPolicy",
             {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
            {"volumeClaimTemplates", Json::array({{{"apiVersion", "v1"},
                                                   {"kind", "PersistentVolumeClaim"},
                                                   {"metadata", pvc_meta},
                                                   {"spec", set.data_volume_claim_spec}}})}}}};
}

std::vector<Json> BuildServices(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  const std::string& type = cluster.spec.service.type;
  Json primary_spec = {{"type", type}, {"ports", ServicePorts(false)}};
  // With Endpoints, Patroni writes the leader's address into the primary
  // Service's Endpoints itself (no selector); otherwise the Service selects
  // the pod labelled primary (by Patroni, its callback or the operator).
  if (!UsesEndpoints(cluster)) {
    Json selector = LabelsJson(ClusterSelector(cluster));
    selector[std::string(patroni::kRoleLabel)] = std::string(patroni::kPrimaryLabelValue);
    primary_spec["selector"] = selector;
  }
  Json replica_selector = LabelsJson(ClusterSelector(cluster));
  replica_selector[std::string(patroni::kRoleLabel)] = std::string(patroni::kReplicaLabelValue);
  std::vector<Json> out = {
      Service(cluster, n.primary_service, primary_spec),
      Service(
          cluster, n.replica_service,
          {{"type", "ClusterIP"}, {"selector", replica_selector}, {"ports", ServicePorts(false)}}),
      Service(cluster, n.pods_service,
              {{"clusterIP", "None"},
               {"publishNotReadyAddresses", true},
               {"selector", LabelsJson(ClusterSelector(cluster))},
               {"ports", ServicePorts(true)}})};
  Json& meta = out[0]["metadata"];
  const api::TemplateMeta& user = cluster.spec.service.metadata;
  for (const auto& [k, v] : user.labels) meta["labels"].emplace(k, v);
  for (const auto& [k, v] : user.annotations) meta["annotations"].emplace(k, v);
  if (UsesEndpoints(cluster)) {  // Patroni's config Endpoints (the leader's is the primary's)
    out.push_back(Service(cluster, n.config_service, {{"clusterIP", "None"}}));
  }
  return out;
}

std::vector<Json> BuildRbac(const PostgresCluster& cluster) {
  if (!PodsHaveApiAccess(cluster)) return {};
  const Names n = NamesOf(cluster);
  Json rules = Json::array();
  if (UsesEtcd(cluster)) {
    // The role-change callback patches its own pod's labels and, becoming
    // primary, lists and patches the cluster's other pods still labelled so.
    rules.push_back(
        {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list", "patch"}}});
  } else {
    // Patroni's kubernetes DCS: the leader lock and config in ConfigMaps or
    // Endpoints (only the kind in use: patronictl remove deletes them as a
    // collection), the role label on its pod, and with Endpoints the config
    // Service when it is missing.
    const bool endpoints = UsesEndpoints(cluster);
    rules.push_back(
        {{"apiGroups", {""}},
         {"resources", {endpoints ? "endpoints" : "configmaps"}},
         {"verbs",
          {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}}});
    rules.push_back({{"apiGroups", {""}},
                     {"resources", {"pods"}},
                     {"verbs", {"get", "list", "watch", "update", "patch"}}});
    if (endpoints) {
      rules.push_back({{"apiGroups", {""}}, {"resources", {"services"}}, {"verbs", {"create"}}});
    }
  }
  Json sa = {{"apiVersion", "v1"},
             {"kind", "ServiceAccount"},
             {"metadata", Metadata(cluster, n.service_account)}};
  Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "Role"},
               {"metadata", Metadata(cluster, n.role)},
               {"rules", rules}};
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", Metadata(cluster, n.role)},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", n.role}}},
      {"subjects",
       Json::array(
           {{{"kind", "ServiceAccount"}, {"name", n.service_account}, {"namespace", n.ns}}})}};
  return {sa, role, binding};
}

std::optional<Json> BuildPodDisruptionBudget(const PostgresCluster& cluster) {
  if (DesiredMembers(cluster) < 2) return std::nullopt;
  return Json{{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", Metadata(cluster, NamesOf(cluster).pdb)},
              {"spec",
               {{"maxUnavailable", 1},
                {"selector", {{"matchLabels", LabelsJson(ClusterSelector(cluster))}}}}}};
}

std::vector<CredentialSpec> CredentialSecrets(const PostgresCluster& cluster) {
  const Names n = NamesOf(cluster);
  std::vector<CredentialSpec> out = {
      {n.superuser_secret, std::string(api::kSuperuserName), "postgres"},
      {n.replication_secret, std::string(api::kReplicationUserName), ""}};
  for (const api::PostgresUserSpec& u : cluster.spec.users) {
    // A user without databases connects to `postgres` (as a PostgresRole's
    // Secret does): libpq's default, a database named after the user, does
    // not exist.
    const std::string db = u.databases.empty() ? "postgres" : u.databases[0];
    out.push_back({UserSecretName(cluster, u.name), u.name, db});
  }
  if (ExporterOn(cluster)) {
    out.push_back({MonitoringSecretName(cluster), std::string(api::kMonitorUserName), "postgres"});
  }
  return out;
}

Json BuildCredentialSecret(const PostgresCluster& cluster, const std::string& name,
                           const std::string& username, const std::string& password,
                           const std::string& dbname, const std::string& ca_pem) {
  const Names n = NamesOf(cluster);
  Json data = {{"username", absl::Base64Escape(username)},
               {"password", absl::Base64Escape(password)}};
  if (username != api::kReplicationUserName) {
    const std::string host = n.primary_service + "." + n.ns + ".svc";
    data["host"] = absl::Base64Escape(host);
    data["port"] = absl::Base64Escape(std::to_string(kPostgresPort));
    if (!dbname.empty()) data["dbname"] = absl::Base64Escape(dbname);
    data["sslmode"] = absl::Base64Escape("verify-full");
    data["uri"] =
        absl::Base64Escape(absl::StrCat("postgresql://", username, ":", password, "@", host, ":",
                                        kPostgresPort, "/", dbname, "?sslmode=verify-full"));
  }
  // libpq reads the CA from a file: mount this Secret and point sslrootcert
  // (or PGSSLROOTCERT) at ca.crt.
  if (!ca_pem.empty()) data["ca.crt"] = absl::Base64Escape(ca_pem);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(cluster, name)},
          {"type", "Opaque"},
          {"data", data}};
}

std::optional<Json> UpgradedCredentialData(const Json& data, const std::string& username,
                                           const std::string& ca_pem) {
  Json out = data.is_object() ? data : Json::object();
  auto decoded = [&](const char* key) -> std::optional<std::string> {
    std::string v;
    const Json* field = json_access::Child(&out, key);
    if (field == nullptr || !field->is_string() ||
        !absl::Base64Unescape(field->get<std::string>(), &v)) {
      return std::nullopt;
    }
    return v;
  };
  bool changed = false;
  if (!ca_pem.empty() && decoded("ca.crt") != ca_pem) {
    out["ca.crt"] = absl::Base64Escape(ca_pem);
    changed = true;
  }
  if (username != api::kReplicationUserName) {
    if (!decoded("sslmode").has_value()) {
      out["sslmode"] = absl::Base64Escape("verify-full");
      changed = true;
    }
    std::optional<std::string> uri = decoded("uri");
    if (uri.has_value() && uri->find("sslmode=") == std::string::npos) {
      *uri += (uri->find('?') == std::string::npos ? "?" : "&");
      *uri += "sslmode=verify-full";
      out["uri"] = absl::Base64Escape(*uri);
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace quorum::postgrescluster
