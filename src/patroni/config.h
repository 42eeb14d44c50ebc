// The Patroni configuration file of a PostgresCluster member, as a pure
// builder: plain structs in (no PostgresCluster JSON, so the API can change
// without touching this), deterministic YAML out (keys sorted, the same input
// gives the same bytes). The file is the same for every member of a cluster:
// per-pod values (member name, connect addresses, pod IP) and every secret
// (database passwords, etcd credentials) reach Patroni only as environment
// variables, listed by PodEnv() so that the StatefulSet and the tests agree.
//
// Layout of the rendered file (Patroni 4.1 names):
//   scope, namespace (the etcd key prefix; the Kubernetes namespace with the
//     kubernetes DCS), restapi.listen (with REST TLS: certfile, keyfile,
//     cafile), ctl (with REST TLS: cacert, certfile, keyfile),
//   bootstrap.dcs {ttl, loop_wait, retry_timeout, check_timeline (true),
//     failsafe_mode (true with the etcd DCS), postgresql {use_pg_rewind,
//     use_slots, parameters, pg_hba}}
//     deep-merged with dynamic_configuration (the user's values win),
//     bootstrap.initdb (or with a restore_command: bootstrap.method pgbackrest
//     and bootstrap.pgbackrest {command, keep_existing_recovery_conf, no_params}),
//   postgresql {listen, data_dir, bin_dir, pgpass,
//     remove_data_directory_on_rewind_failure and _on_diverged_timelines (both
//     true: a replica that cannot rejoin is cloned again), authentication usernames
//     (with TLS: replication/rewind sslmode + sslrootcert), callbacks
//     on_start/on_role_change/on_stop, parameters (local; with TLS: ssl,
//     ssl_cert_file, ssl_key_file, ssl_ca_file)},
//   tags, and exactly one of kubernetes: / etcd3:.
//
// Validation of the inputs (timings, endpoint counts) belongs to the API's
// admission rules; RenderConfig renders what it is given.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_CONFIG_H_
#define QUORUM_SRC_PATRONI_CONFIG_H_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace quorum::patroni {

// Patroni's etcd3 DCS (etcd's v3 JSON gateway).
struct EtcdDcs {
  std::vector<std::string> hosts;  // host:port, in order
  std::string protocol = "http";   // "http" | "https"
  std::string cacert, cert, key;   // file paths in the pod; "" = not set
  // With auth, the username and password come only from
  // PATRONI_ETCD3_USERNAME / PATRONI_ETCD3_PASSWORD (see PodEnv).
  bool auth = false;
};

// Patroni's kubernetes DCS (leader lock in an Endpoints or ConfigMap object).
// Patroni selects its member pods by `labels` plus scope_label=<scope>, so
// the pods must carry both; it sets role_label on them itself.
struct KubernetesDcs {
  std::string namespace_;                     // Kubernetes namespace of the pods
  std::map<std::string, std::string> labels;  // labels of every object Patroni makes
  std::string scope_label = "cluster-name";
  std::string role_label = "role";
  std::string leader_label_value = "primary";
  std::string follower_label_value = "replica";
  bool use_endpoints = true;  // false: ConfigMaps
  // The port Patroni writes into the leader Endpoints; "" leaves Patroni's
  // default (5432, unnamed).
  std::string port_name;
  int port = 5432;
};

// PostgreSQL's TLS: the server certificate files in the pod, and how the
// members reach each other. Replicas and pg_rewind connect to the primary's
// pod IP, which no certificate names (pod IPs change), so they verify the
// chain only (verify-ca) against `ca_file`.
struct PostgresTls {
  std::string cert_file, key_file, ca_file;
  std::string member_sslmode = "verify-ca";
};

// TLS on Patroni's REST API: the certificate files it serves, and the CA
// that callers in the pod trust. Rendered as restapi.certfile/keyfile/cafile
// and as the ctl section (cacert, certfile, keyfile), which Patroni uses for
// its own calls to the other members (failover checks, failsafe) and
// patronictl for its calls:
//   * patronictl verifies the chain against cacert and the name in the
//     member's api_url (the connect address) against the certificate;
//   * the Patroni daemon always calls its peers "insecure" (Patroni 4.1,
//     __main__.py): without ctl.certfile it would not verify at all; with
//     it, it keeps CERT_REQUIRED (the chain against cacert) and skips only
//     the name. The certificate is offered as a client certificate too; the
//     REST API does not ask for one (no verify_client).
struct RestApiTls {
  std::string cert_file, key_file, ca_file;
  // restapi.verify_client: optional — every unsafe call (POST, PUT, PATCH,
  // DELETE) must present a client certificate from ca_file; GETs (probes,
  // status) need none.
  bool verify_client = false;
};

struct ConfigInput {
  std::string scope;  // cluster name
  // Patroni `namespace` (etcd key prefix), e.g. "/quorum/db/". Ignored with
  // the kubernetes DCS: Patroni copies the top-level `namespace` into the
  // kubernetes section, so there it is KubernetesDcs::namespace_.
  std::string key_namespace;
  int ttl = 30, loop_wait = 10, retry_timeout = 10;
  // Merged into bootstrap.dcs (the user's patroni.dynamicConfiguration); an
  // object or null.
  nlohmann::json dynamic_configuration;
  std::map<std::string, std::string> parameters;  // PostgreSQL parameters (bootstrap.dcs)
  std::vector<std::string> pg_hba;                // bootstrap.dcs.postgresql.pg_hba, in order
  // Local PostgreSQL parameters (postgresql.parameters), e.g. unix_socket_directories.
  std::map<std::string, std::string> local_parameters;
  bool use_pg_rewind = true;
  std::string listen_host = "0.0.0.0";  // restapi and postgresql listen on this
  int postgres_port = 5432, restapi_port = 8008;
  // The host of restapi.connect_address (PATRONI_RESTAPI_CONNECT_ADDRESS,
  // PodEnv): the other members and patronictl call the member there (the
  // api_url in the DCS). May use $(POD_NAME) and $(POD_IP).
  std::string restapi_connect_host = "$(POD_IP)";
  std::string data_dir;                // PGDATA
  std::string bin_dir;                 // of the PostgreSQL major
  std::string pgpass = "/tmp/pgpass";  // Patroni writes it; must be writable
  // on_start, on_role_change, on_stop (RoleCallbackScript(), mounted
  // executable); "" = none.
  std::string callback_script;
  // PYTHONPATH (PodEnv): the directory where the start-up hook
  // (StartHookScript(), start_hook.h) is mounted as sitecustomize.py; "" =
  // none.
  std::string python_path;
  std::string superuser_username = "postgres";
  std::string replication_username = "replicator";
  std::string rewind_username = "rewinder";    // used when use_pg_rewind
  std::map<std::string, nlohmann::json> tags;  // Patroni tags (nofailover: false, ...)
  std::variant<KubernetesDcs, EtcdDcs> dcs;
  // ssl=on with these files, and the members' own connections over TLS;
  // nullopt: no TLS.
  std::optional<PostgresTls> tls;
  // Patroni's REST API demands basic auth for every unsafe method (POST,
  // PUT, PATCH, DELETE); the credentials come only from
  // PATRONI_RESTAPI_USERNAME/PASSWORD (PodEnv), which patronictl in the pod
  // reads too.
  bool restapi_auth = false;
  // HTTPS on the REST API (see RestApiTls); nullopt: plain HTTP.
  std::optional<RestApiTls> restapi_tls;
  // A new cluster's data from a backup: bootstrap.method "pgbackrest" runs
  // this command (no Patroni arguments) instead of initdb, keeping the
  // recovery settings it writes (the restore's restore_command and target)
  // until the recovery has promoted; Patroni then drops them. "" = initdb.
  std::string restore_command;
};

// Patroni's dynamic configuration: the file's bootstrap.dcs, which Patroni
// stores in the DCS when it initialises the cluster; afterwards the operator
// keeps the DCS copy in line with it (dynamic_config.h).
nlohmann::json DynamicConfig(const ConfigInput& in);

// The configuration as JSON (what RenderConfig writes).
nlohmann::json BuildConfig(const ConfigInput& in);

// The YAML file text (api/yaml_writer: sorted keys, block style).
std::string RenderConfig(const ConfigInput& in);

// Where the value of a pod environment variable comes from.
enum class EnvSource {
  kLiteral,              // `value` is the text (may use $(POD_IP), $(POD_NAME))
  kPodName,              // fieldRef metadata.name
  kPodNamespace,         // fieldRef metadata.namespace
  kPodIp,                // fieldRef status.podIP
  kSuperuserPassword,    // the superuser Secret's password
  kReplicationPassword,  // the replication Secret's password
  kRewindPassword,       // the rewind user's password (the replication Secret may hold it)
  kEtcdUsername,         // the etcd auth Secret's `username`
  kEtcdPassword,         // the etcd auth Secret's `password`
  kRestApiUsername,      // the REST API Secret's `username`
  kRestApiPassword,      // the REST API Secret's `password`
};

struct EnvVar {
  std::string name;
  EnvSource source;
  std::string value;  // kLiteral only
  bool operator==(const EnvVar&) const = default;
};

// The environment every member pod must set, in an order that Kubernetes'
// $(VAR) expansion accepts (POD_* first). POD_NAME and POD_NAMESPACE also
// serve the role callback script. Besides the per-pod values and secrets,
// with etcd auth it sets PATRONI_ETCD3_PROTOCOL: Patroni 4.1 reads
// PATRONI_ETCD3_USERNAME/PASSWORD only when another PATRONI_ETCD3_* variable
// that it knows (HOSTS, PROTOCOL, ...) is present. With restapi_auth it sets
// PATRONI_RESTAPI_USERNAME/PASSWORD.
std::vector<EnvVar> PodEnv(const ConfigInput& in);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_CONFIG_H_
