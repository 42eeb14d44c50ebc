// The PostgresCluster resource (postgres.quorum.dev/v1alpha1): its names, the
// values its defaults use, the PostgreSQL majors it supports with their
// default images, and the role names Quorum keeps for itself. API.md is the
// contract; this header is where code finds the constants, so the CRD
// generator, the webhooks and the reconciler agree on them.
//
// Thread-safety: constants and pure functions only.
#ifndef QUORUM_API_POSTGRESCLUSTER_H_
#define QUORUM_API_POSTGRESCLUSTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kPostgresGroup = "postgres.quorum.dev";
inline constexpr std::string_view kPostgresVersion = "v1alpha1";
inline constexpr std::string_view kPostgresApiVersion = "postgres.quorum.dev/v1alpha1";
inline constexpr std::string_view kPostgresClusterKind = "PostgresCluster";
inline constexpr std::string_view kPostgresClusterListKind = "PostgresClusterList";
inline constexpr std::string_view kPostgresClusterPlural = "postgresclusters";
inline constexpr std::string_view kPostgresClusterSingular = "postgrescluster";
inline constexpr std::string_view kPostgresClusterShortName = "pgc";
inline constexpr std::string_view kPostgresClusterCrdName = "postgresclusters.postgres.quorum.dev";

// PostgreSQL majors that spec.postgresVersion accepts (inclusive).
inline constexpr int kMinPostgresMajor = 13;
inline constexpr int kMaxPostgresMajor = 18;

// The image used when spec.image is empty: "ghcr.io/quorum-dev/postgres:<major>-patroni4"
// for a supported major; nullopt otherwise. The one table of default images.
std::optional<std::string> DefaultPostgresImage(int major);

// Whether the default image of major `to` carries the binaries of major
// `from` for pg_upgrade (images/postgres: PG_UPGRADE_FROM), and those majors
// in words ("it carries 15's binaries"; "it carries no older major's").
bool DefaultImageUpgradesFrom(int to, int from);
std::string DefaultUpgradeSources(int to);

// spec.proxy.pgBouncer (docs/pooler.md): the image used when its `image` is
// empty (images/pgbouncer, Debian's pgbouncer), its defaults and limits.
inline constexpr std::string_view kDefaultPgBouncerImage = "ghcr.io/quorum-dev/pgbouncer:1-trixie";
// Two pods, spread over nodes when there are several (preferred
// anti-affinity): one pooler pod lost or rolled leaves the other serving.
inline constexpr int32_t kDefaultPgBouncerReplicas = 2;
inline constexpr int32_t kMaxPgBouncerReplicas = 16;
inline constexpr std::string_view kDefaultPgBouncerPoolMode = "transaction";
inline constexpr size_t kMaxPgBouncerConfigKeys = 64;

// spec.monitoring.exporter (docs/monitoring.md): the image used when its
// `image` is empty (images/postgres-exporter, Debian's
// prometheus-postgres-exporter) and the port its metrics are served on.
inline constexpr std::string_view kDefaultExporterImage =
    "ghcr.io/quorum-dev/postgres-exporter:0-trixie";
inline constexpr int32_t kExporterPort = 9187;

// Every supported major, ascending.
std::span<const int> SupportedPostgresMajors();

// Defaults (API.md "spec"). The CRD schema and the defaulting webhook both
// apply them; the reconciler may rely on them being present.
inline constexpr std::string_view kDefaultInstanceSetName = "main";
inline constexpr int32_t kDefaultInstanceReplicas = 1;
inline constexpr std::string_view kDefaultDataAccessMode = "ReadWriteOnce";
inline constexpr int32_t kDefaultLeaderLeaseDurationSeconds = 30;  // Patroni ttl
inline constexpr int32_t kDefaultSyncPeriodSeconds = 10;           // Patroni loop_wait
inline constexpr int32_t kDefaultRetryTimeoutSeconds = 10;         // Patroni retry_timeout
// podAPIAccess: true with the kubernetes DCS (Patroni keeps its leader lock
// in the API), false with etcd (Quorum keeps the role labels; issue 15.4).
// The schema cannot default one field by another, so only the webhook and
// the operator's parse apply it.
inline constexpr bool kDefaultPodApiAccess = true;
inline constexpr bool kDefaultPodApiAccessWithEtcd = false;
inline constexpr std::string_view kDefaultServiceType = "ClusterIP";
inline constexpr std::string_view kDefaultSwitchoverType = "Switchover";

// Limits (API.md "spec"; Patroni's own: ttl >= 20).
inline constexpr int32_t kMinLeaderLeaseDurationSeconds = 20;
inline constexpr size_t kMaxInstanceSets = 16;
// The most members one instance set may ask for (instances[].replicas): every
// replica streams WAL from the one primary; the cap also bounds what one
// object can make the operator do (issue 14).
inline constexpr int32_t kMaxInstanceReplicas = 32;
inline constexpr size_t kMaxEtcdEndpoints = 7;
inline constexpr size_t kMaxUsers = 64;
// spec.authentication.rules: at most this many, each naming at most
// kMaxHbaNames databases and users.
inline constexpr size_t kMaxHbaRules = 32;
inline constexpr size_t kMaxHbaNames = 16;
inline constexpr std::string_view kDefaultHbaConnection = "hostssl";
inline constexpr size_t kMaxDatabasesPerUser = 64;

// spec.patroni.dcs.type values; an absent type means kDcsKubernetes.
inline constexpr std::string_view kDcsKubernetes = "kubernetes";
inline constexpr std::string_view kDcsEtcd = "etcd";

// Each instance set is a StatefulSet "<cluster>-<instance set>"; its pods
// carry a controller-revision-hash label "<statefulset>-<10 chars>" that must
// fit the 63-character label limit, so the StatefulSet name has at most 52.
inline constexpr size_t kMaxStatefulSetNameLength = 52;
// The cluster's own name leaves room for "-" and at least one character of
// an instance set name, and for Service suffixes such as "-replicas".
inline constexpr size_t kMaxPostgresClusterNameLength = 50;

// PostgreSQL roles Quorum creates itself; spec.users may not use them (nor
// any name starting with "pg_", which PostgreSQL reserves).
inline constexpr std::string_view kSuperuserName = "postgres";
inline constexpr std::string_view kReplicationUserName = "replicator";
// The login role PgBouncer (spec.proxy.pgBouncer) looks passwords up as
// (auth_query); it may only execute one lookup function (docs/pooler.md).
inline constexpr std::string_view kPoolerUserName = "quorum_pooler";
// PgBouncer's admin console user (admin_users; in its auth_file only, not a
// PostgreSQL role): the operator pauses the pooler during a switchover as it.
inline constexpr std::string_view kPoolerAdminName = "quorum_pooler_admin";
// The login role of the metrics exporter (spec.monitoring.exporter): a
// member of pg_monitor, reachable only over TLS from its own pod's loopback.
inline constexpr std::string_view kMonitorUserName = "quorum_monitor";

// Role attributes spec.users[].options may grant. SUPERUSER, REPLICATION and
// BYPASSRLS are not offered: they would hand out more than the operator's own
// roles. CREATEROLE is offered only from PostgreSQL 16 on, where it no
// longer lets a role grant itself membership in any non-superuser role.
std::span<const std::string_view> AllowedRoleOptions();
inline constexpr int kMinMajorForCreateRole = 16;

// Labels the reconciler puts on the objects of a cluster (the pods' role
// label is Patroni's own: src/patroni/role.h).
inline constexpr std::string_view kClusterLabel = "postgres.quorum.dev/cluster";
inline constexpr std::string_view kInstanceSetLabel = "postgres.quorum.dev/instance-set";
// Annotation that asks for a switchover: its value is a trigger that is
// acted on once (status.patroni.switchover.trigger records the last one).
inline constexpr std::string_view kSwitchoverTriggerAnnotation =
    "postgres.quorum.dev/trigger-switchover";
// Annotation that asks for an in-place restore (spec.backups.pgbackrest.restore):
// each new value is acted on once (status.backups.pgbackrest.restore.id).
inline constexpr std::string_view kRestoreTriggerAnnotation =
    "postgres.quorum.dev/pgbackrest-restore";

// A PostgreSQL identifier as spec.users names roles and databases:
// ^[a-z_][a-z0-9_]{0,62}$ (lowercase, so it never needs quoting).
bool IsPostgresIdentifier(std::string_view s);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_H_
