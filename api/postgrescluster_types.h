// The PostgresCluster as typed C++ values: what the reconciler, the builders,
// the DCS resolution and the status code read instead of JSON paths. An object
// is parsed once per reconcile (ParsePostgresCluster): defaults applied
// (DefaultPostgresCluster, the one place for them), validated
// (ValidatePostgresCluster, the admission rules), then decoded; any problem is
// an InvalidArgument status naming the field path ("spec.instances[0].replicas:
// want an integer, got \"3\"").
//
// Embedded Kubernetes types (a PersistentVolumeClaimSpec, ResourceRequirements,
// Affinity, tolerations, spread constraints) and Patroni's dynamic
// configuration stay JSON: Quorum passes them through and never interprets
// their fields. The metadata and condition types are shared with EtcdCluster
// (api/etcdcluster_types.h).
//
// Thread-safety: value types and pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_TYPES_H_
#define QUORUM_API_POSTGRESCLUSTER_TYPES_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdcluster_types.h"
#include "api/postgrescluster.h"

namespace quorum::api {

// spec.instances[]: one StatefulSet of identical members.
struct PostgresInstanceSet {
  std::string name{kDefaultInstanceSetName};
  int32_t replicas = kDefaultInstanceReplicas;
  nlohmann::json data_volume_claim_spec;       // PersistentVolumeClaimSpec; null when absent
  nlohmann::json resources;                    // ResourceRequirements; null when absent
  nlohmann::json affinity;                     // null when absent
  nlohmann::json tolerations;                  // a list; null when absent
  nlohmann::json topology_spread_constraints;  // a list; null when absent
  TemplateMeta metadata;                       // labels and annotations of the pods
};

// spec.patroni.dcs.etcd: where the etcd DCS is.
struct PostgresEtcdDcs {
  std::string cluster_ref;             // clusterRef.name; "" when endpoints are used
  std::vector<std::string> endpoints;  // client URLs of an etcd the user runs
  std::string tls_secret;              // "" none
  std::string auth_secret;             // "" none
  std::string key_namespace;           // Patroni's namespace; "" derived (names.h KeyNamespace)
};

struct PostgresDcsSpec {
  std::string type{kDcsKubernetes};  // kDcsKubernetes | kDcsEtcd
  PostgresEtcdDcs etcd;              // only with type etcd
  bool UsesEtcd() const { return type == kDcsEtcd; }
};

struct PostgresSwitchoverSpec {
  bool enabled = false;
  std::string target_instance;               // "" lets Patroni choose (Switchover only)
  std::string type{kDefaultSwitchoverType};  // Switchover | Failover
};

struct PatroniSpec {
  int32_t leader_lease_duration_seconds = kDefaultLeaderLeaseDurationSeconds;
  int32_t sync_period_seconds = kDefaultSyncPeriodSeconds;
  int32_t retry_timeout_seconds = kDefaultRetryTimeoutSeconds;
  nlohmann::json dynamic_configuration;  // an object; null when absent
  bool pod_api_access = kDefaultPodApiAccess;
  PostgresDcsSpec dcs;
  PostgresSwitchoverSpec switchover;
};

struct PostgresUserSpec {
  std::string name;
  std::vector<std::string> databases;
  std::vector<std::string> options;  // role attributes, e.g. CREATEDB
};

// spec.authentication.rules[]: a pg_hba line of the user's, placed after
// Quorum's rules for its own roles and before the catch-all ones
// (src/controllers/postgrescluster/builders.h PgHba).
struct PostgresHbaRule {
  std::string connection{kDefaultHbaConnection};  // hostssl | host | local
  std::vector<std::string> databases;             // empty: all
  std::vector<std::string> users;                 // empty: all
  std::string address;                            // host lines; "" means all
  std::string method;
  std::map<std::string, std::string> options;  // e.g. clientcert: verify-full
};

struct PostgresAuthenticationSpec {
  std::vector<PostgresHbaRule> rules;
};

struct PostgresServiceSpec {
  std::string type{kDefaultServiceType};
  TemplateMeta metadata;  // labels and annotations of the primary Service
};

// spec.tls: PostgreSQL's server certificate (src/controllers/postgrescluster/tls.h).
// TLS is always on; these choose where the certificate comes from and whether
// clients may still connect without it.
struct PostgresTlsSpec {
  std::string custom_secret;     // the user's kubernetes.io/tls Secret; "" none
  std::string ca_secret;         // the user's CA that issues the certificate; "" generated
  bool allow_plaintext = false;  // also accept clients without TLS (replication never)
};

// spec.networkPolicy (src/controllers/postgrescluster/access.h).
struct PostgresNetworkPolicySpec {
  bool enabled = true;  // a NetworkPolicy guards the members' ports
  // networking.k8s.io/v1 NetworkPolicyPeers admitted to PostgreSQL's port,
  // kept as written; null when absent (then every pod of the namespace is).
  nlohmann::json postgres_from;
};

// spec.backups.pgbackrest.repos[].s3: a bucket of an S3-compatible store,
// reached over HTTPS (pgBackRest knows no plain HTTP).
struct PgBackRestS3 {
  std::string bucket;
  std::string endpoint;  // host or host:port, as written
  std::string region;
};

// spec.backups.pgbackrest.repos[].schedules: five-field UTC cron lines
// (api/cron.h); "" = none of that type.
struct PgBackRestSchedules {
  std::string full;
  std::string differential;
  std::string incremental;
};

// spec.backups.pgbackrest.repos[]: one pgBackRest repository, in an S3
// bucket or on a PersistentVolumeClaim of the cluster's repository host.
struct PgBackRestRepo {
  std::string name;  // repo1 .. repo4
  PgBackRestS3 s3;   // empty for a volume repository
  // volume.volumeClaimSpec: a PersistentVolumeClaimSpec as written; null for
  // an S3 repository.
  nlohmann::json volume_claim_spec;
  PgBackRestSchedules schedules;
  // 1..4, from the name.
  int Index() const { return name.size() == 5 ? name[4] - '0' : 0; }
  bool IsVolume() const { return !volume_claim_spec.is_null(); }
};

// A point-in-time recovery's target (spec.dataSource.pgbackrest.target and
// spec.backups.pgbackrest.restore.target): where recovery stops; at most one
// is set, none: at the end of the archived WAL.
struct PgBackRestRestoreTarget {
  std::string time;  // RFC 3339, e.g. 2026-12-04T10:15:00Z
  std::string lsn;   // e.g. 0/5000100
  std::string xid;   // a transaction id, digits
  bool operator==(const PgBackRestRestoreTarget&) const = default;
};

// spec.backups.pgbackrest.restore: an in-place restore of this cluster from
// one of its own repositories (Crunchy's model): the spec says what, the
// annotation kRestoreTriggerAnnotation (api/postgrescluster.h) says when.
struct PgBackRestInPlaceRestore {
  bool enabled = false;
  std::string repo_name;  // one of repos[].name
  std::string set;        // a backup label; "" lets pgBackRest choose
  PgBackRestRestoreTarget target;
};

// spec.backups.pgbackrest (Crunchy PGO v5's field names).
struct PgBackRestSpec {
  std::vector<PgBackRestRepo> repos;
  // configuration[].secret.name: Secrets whose keys become files in
  // pgBackRest's conf.d (S3 keys, a CA file).
  std::vector<std::string> configuration_secrets;
  std::map<std::string, std::string> global;  // pgBackRest options, [global]
  std::optional<PgBackRestInPlaceRestore> restore;
};

struct PostgresBackupsSpec {
  std::optional<PgBackRestSpec> pgbackrest;
};

// spec.dataSource.pgbackrest: a new cluster's first member restores a
// backup from a repository (another cluster's, possibly deleted) with
// pgBackRest, then recovers to `target` and promotes; the others are cloned
// from it.
struct PgBackRestDataSource {
  // The cluster that wrote the repository: its default path
  // /pgbackrest/<cluster_namespace>/<cluster_name>/<repo.name>; global's
  // repoN-path wins.
  std::string cluster_name;
  std::string cluster_namespace;  // "" the new cluster's namespace
  PgBackRestRepo repo;
  std::vector<std::string> configuration_secrets;
  std::map<std::string, std::string> global;
  std::string set;  // a backup label; "" lets pgBackRest choose (the newest before a time target)
  PgBackRestRestoreTarget target;
};

struct PostgresDataSource {
  std::optional<PgBackRestDataSource> pgbackrest;
};

// spec.proxy.pgBouncer: a PgBouncer Deployment in front of the primary
// (src/controllers/postgrescluster/pgbouncer.h, docs/pooler.md).
struct PgBouncerSpec {
  int32_t replicas = kDefaultPgBouncerReplicas;
  std::string pool_mode{kDefaultPgBouncerPoolMode};  // session | transaction | statement
  // Extra [pgbouncer] settings, as written; the keys Quorum owns are refused
  // at admission (api/postgrescluster_pgbouncer.h).
  std::map<std::string, std::string> config;
  nlohmann::json resources;  // ResourceRequirements; null when absent
  std::string image;         // "" means kDefaultPgBouncerImage
  bool operator==(const PgBouncerSpec&) const = default;
};

struct PostgresProxySpec {
  std::optional<PgBouncerSpec> pgbouncer;  // nullopt: no pooler
};

// spec.monitoring.exporter: a PostgreSQL metrics exporter beside PostgreSQL
// in every member pod (docs/monitoring.md).
struct PostgresExporterSpec {
  // nullopt (unset): on for a new cluster; a cluster whose members already
  // run keeps what they run (src/controllers/postgrescluster/monitoring.h).
  std::optional<bool> enabled;
  std::string image;         // "" means kDefaultExporterImage
  nlohmann::json resources;  // ResourceRequirements; null when absent
  bool operator==(const PostgresExporterSpec&) const = default;
};

struct PostgresMonitoringSpec {
  PostgresExporterSpec exporter;
};

struct PostgresClusterSpec {
  int32_t postgres_version = 0;
  std::string image;  // "" means DefaultPostgresImage(postgres_version)
  std::vector<PostgresInstanceSet> instances;
  PatroniSpec patroni;
  std::vector<PostgresUserSpec> users;
  PostgresAuthenticationSpec authentication;
  PostgresServiceSpec service;
  PostgresTlsSpec tls;
  PostgresNetworkPolicySpec network_policy;
  PostgresBackupsSpec backups;
  PostgresDataSource data_source;  // immutable
  PostgresProxySpec proxy;
  PostgresMonitoringSpec monitoring;
};

struct PostgresInstanceStatus {
  std::string name;
  int32_t replicas = 0;
  int32_t ready_replicas = 0;
  int32_t updated_replicas = 0;
  bool operator==(const PostgresInstanceStatus&) const = default;
};

struct PostgresUserStatus {
  std::string name;
  std::string secret_name;
  bool operator==(const PostgresUserStatus&) const = default;
};

// The last switchover trigger handled (status.patroni.switchover).
struct PostgresSwitchoverStatus {
  std::string trigger;  // the annotation's value
  std::string type;     // Switchover | Failover
  std::string from;
  std::string to;
  std::string time;    // RFC 3339
  std::string result;  // Succeeded | Failed
  std::string message;
  bool operator==(const PostgresSwitchoverStatus&) const = default;
};

struct PostgresPatroniStatus {
  std::string system_identifier;
  // The kubernetes DCS's objects (kDcsObjects* below), recorded at the first
  // reconcile that knows: "" with the etcd DCS or before that reconcile.
  std::string dcs_objects;
  std::optional<PostgresSwitchoverStatus> switchover;
  bool operator==(const PostgresPatroniStatus&) const = default;
};

// Where Patroni's kubernetes DCS keeps the leader lock and config: the
// Endpoints of clusters made before Quorum moved to ConfigMaps, ConfigMaps for
// the others (src/controllers/postgrescluster/dcs_objects.h).
inline constexpr char kDcsObjectsEndpoints[] = "Endpoints";
inline constexpr char kDcsObjectsConfigMaps[] = "ConfigMaps";

// status.backups.pgbackrest.repos[]: the newest Complete PostgresBackup of
// each type in one repository.
struct PgBackRestBackupRef {
  std::string backup;     // the PostgresBackup
  std::string label;      // pgBackRest's label
  std::string stop_time;  // RFC 3339
  bool operator==(const PgBackRestBackupRef&) const = default;
};
struct PgBackRestRepoStatus {
  std::string name;  // repo1..repo4
  std::optional<PgBackRestBackupRef> full, differential, incremental;
  // As the newest Complete backup of any type saw the repository: its
  // highest archived WAL segment, and the window a point-in-time recovery
  // surely reaches: from the oldest backup's end to the newest's (later
  // times up to the archived WAL too). "" unknown.
  std::string wal_archived_up_to;
  std::string recoverable_from, recoverable_to;
  bool operator==(const PgBackRestRepoStatus&) const = default;
};

// status.backups.pgbackrest.restore: the last in-place restore triggered.
struct PgBackRestRestoreStatus {
  std::string id;          // the trigger annotation's value it answers
  std::string phase;       // kRestore* below
  std::string started_at;  // RFC 3339
  std::string finished_at;
  std::string message;
  bool operator==(const PgBackRestRestoreStatus&) const = default;
};
// Checking: nothing stops yet; the primary's newest WAL must reach the
// repositories first (restore_check.h in the controller).
// Stopping: the members stop, then their volumes and Patroni's DCS state go.
// Restoring: the first member restores and recovers; the others clone it.
inline constexpr char kRestoreChecking[] = "Checking";
inline constexpr char kRestoreStopping[] = "Stopping";
inline constexpr char kRestoreRestoring[] = "Restoring";
inline constexpr char kRestoreSucceeded[] = "Succeeded";
// Refused or given up before anything stopped (the message says why).
inline constexpr char kRestoreFailed[] = "Failed";

// status.majorUpgrade: the in-place major upgrade (pg_upgrade) spec.postgresVersion
// asked for (src/controllers/postgrescluster/major_upgrade.h has the steps).
struct PostgresMajorUpgradeStatus {
  int32_t from = 0;        // the data's major when it started
  int32_t to = 0;          // spec.postgresVersion it upgrades to
  std::string phase;       // kUpgrade* below
  std::string member;      // the pod whose data pg_upgrade converts (an ordinal 0)
  std::string from_image;  // the image the members ran before (they run it again on failure)
  std::string started_at;  // RFC 3339
  std::string finished_at;
  std::string message;
  bool operator==(const PostgresMajorUpgradeStatus&) const = default;
};
// Preparing: the primary moves to an ordinal-0 pod (a switchover) if needed.
// StoppingReplicas: every member but that pod stops (no failover to them).
// Stopping: that pod stops (a clean shutdown of the primary).
// Upgrading: a Job runs pg_upgrade on its volume.
// Starting: Patroni's state left the DCS; that pod starts on the new major.
inline constexpr char kUpgradePreparing[] = "Preparing";
inline constexpr char kUpgradeStoppingReplicas[] = "StoppingReplicas";
inline constexpr char kUpgradeStopping[] = "Stopping";
inline constexpr char kUpgradeUpgrading[] = "Upgrading";
inline constexpr char kUpgradeStarting[] = "Starting";
inline constexpr char kUpgradeSucceeded[] = "Succeeded";
// pg_upgrade refused or failed: the members run the old major again.
inline constexpr char kUpgradeFailed[] = "Failed";

// status.proxy.pgBouncer: the pooler's Deployment as last observed.
struct PgBouncerStatus {
  int32_t replicas = 0;
  int32_t ready_replicas = 0;
  std::string service;  // <cluster>-pgbouncer
  bool operator==(const PgBouncerStatus&) const = default;
};

struct PostgresClusterStatus {
  int64_t observed_generation = 0;
  // The major of the members' data (0: not recorded yet, by an operator
  // before major upgrades: then spec.postgresVersion, which could not change).
  int32_t postgres_version = 0;
  std::optional<PostgresMajorUpgradeStatus> major_upgrade;
  std::vector<Condition> conditions;
  std::vector<PostgresInstanceStatus> instances;
  std::string ready_instances;  // "ready/desired"
  std::string primary;          // pod name; "" unknown
  std::string primary_service;
  std::string replica_service;
  std::vector<PostgresUserStatus> users;
  PostgresPatroniStatus patroni;
  std::vector<PgBackRestRepoStatus> backup_repos;  // status.backups.pgbackrest.repos
  std::optional<PgBackRestRestoreStatus> restore;  // status.backups.pgbackrest.restore
  std::optional<PgBouncerStatus> pgbouncer;        // status.proxy.pgBouncer; with the pooler only
  bool operator==(const PostgresClusterStatus&) const = default;
};

struct PostgresCluster {
  ObjectMeta metadata;
  PostgresClusterSpec spec;
  PostgresClusterStatus status;  // as stored (the previous reconcile's)
};

// Defaults, validates and decodes a whole PostgresCluster. InvalidArgument
// with "field: message; ..." when the object breaks an admission rule or a
// field has the wrong type. Never throws.
absl::StatusOr<PostgresCluster> ParsePostgresCluster(const nlohmann::json& obj);

// Decodes without defaulting or validating (type errors still name the
// field): for objects already defaulted, for the informer's indexes, and for
// tests of single fields. Absent fields keep the struct's defaults.
absl::StatusOr<PostgresCluster> DecodePostgresCluster(const nlohmann::json& obj);

// The serialised forms, as the API server stores them (absent and default
// fields omitted where the API server would omit them).
nlohmann::json ToJson(const PostgresClusterSpec& spec);
nlohmann::json ToJson(const PostgresClusterStatus& status);

// The condition `type` in `status`, or null.
const Condition* FindCondition(const PostgresClusterStatus& status, const std::string& type);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_TYPES_H_
