// spec.proxy.pgBouncer, pure builders (docs/pooler.md): PgBouncer in front of
// a PostgresCluster's primary. Objects, all owned by the cluster:
//   * <cluster>-pgbouncer: the Deployment (non-root, read-only root file
//     system, TCP probes, preferred anti-affinity over nodes, a rolling
//     update that keeps every ready pod until its replacement is ready), its
//     ClusterIP Service (port 5432), its NetworkPolicy (PgBouncer's port from
//     the peers the members' PostgreSQL port admits) and the ConfigMap with
//     pgbouncer.ini (no secrets in it);
//   * <cluster>-pgbouncer-auth (created once; passwords never rewritten): the
//     password of the login role quorum_pooler, that of the admin console's
//     user quorum_pooler_admin (the operator pauses the pooler during a
//     switchover, pgbouncer_console.h) and userlist.txt, PgBouncer's
//     auth_file, which holds those two only;
//   * <cluster>-pgbouncer-tls (renewed like the members' certificate):
//     ca.crt (the cluster's CA), tls.crt and tls.key, issued from the
//     cluster's CA for the Service's DNS names. With spec.tls.customSecret the
//     pooler serves that Secret instead (no CA key to issue from).
// PgBouncer reaches the primary through the primary Service with
// server_tls_sslmode verify-full against the cluster's CA, and looks client
// passwords up with auth_query through a SECURITY DEFINER function in the
// database `postgres` (pgbouncer_sql.h). The Deployment's pod template carries
// a digest of pgbouncer.ini and of the certificate, so a change of either
// rolls the pods (PgBouncer reads its files at start).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/controllers/common/operator_peer.h"
#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

// The image's user (images/pgbouncer/Dockerfile).
inline constexpr int kPgBouncerUid = 70;
inline constexpr char kPgBouncerContainerName[] = "pgbouncer";
// The pooler pods' own label (value: the cluster's name); never the members'
// kClusterLabel, which means "a member" to every selector of the cluster.
inline constexpr char kPgBouncerLabel[] = "postgres.quorum.dev/pgbouncer";
// On the pod template: the digest of pgbouncer.ini and of the certificate.
inline constexpr char kPgBouncerConfigAnnotation[] = "postgres.quorum.dev/pgbouncer-config";
// Where the pod finds its files.
inline constexpr char kPgBouncerConfigDir[] = "/etc/pgbouncer/config";
inline constexpr char kPgBouncerIniFile[] = "/etc/pgbouncer/config/pgbouncer.ini";
inline constexpr char kPgBouncerAuthDir[] = "/etc/pgbouncer/auth";
inline constexpr char kPgBouncerTlsDir[] = "/etc/pgbouncer/tls";
// The database that holds the lookup function (auth_dbname) and the function.
inline constexpr char kPgBouncerAuthDatabase[] = "postgres";
inline constexpr char kPgBouncerLookupFunction[] = "quorum_pooler.lookup";
// The key of <cluster>-pgbouncer-auth holding the admin console's password.
inline constexpr char kPgBouncerAdminPasswordKey[] = "admin-password";

struct PgBouncerNames {
  std::string name;         // <cluster>-pgbouncer: Deployment, Service, NetworkPolicy, ConfigMap
  std::string auth_secret;  // <cluster>-pgbouncer-auth
  std::string tls_secret;   // <cluster>-pgbouncer-tls
};
PgBouncerNames PgBouncerNamesOf(const PostgresCluster& cluster);

// spec.proxy.pgBouncer is set.
bool HasPgBouncer(const PostgresCluster& cluster);

// The pooler pods' labels (also the Deployment's selector).
std::map<std::string, std::string> PgBouncerSelector(const PostgresCluster& cluster);

// <cluster>-pgbouncer.<ns>.svc: the host of the connection Secrets' pgbouncer-uri.
std::string PgBouncerHost(const PostgresCluster& cluster);

// The DNS names of the pooler's certificate: the Service as <svc>, <svc>.<ns>,
// <svc>.<ns>.svc and <svc>.<ns>.svc.cluster.local. Sorted.
std::vector<std::string> PgBouncerCertDnsNames(const PostgresCluster& cluster);

// The Secret the pooler serves TLS from: spec.tls.customSecret or <cluster>-pgbouncer-tls.
std::string PgBouncerMountedTlsSecret(const PostgresCluster& cluster);

// pgbouncer.ini: Quorum's settings (listen, auth, TLS, files, pool_mode),
// then defaults for failovers that spec.proxy.pgBouncer.config may override
// (server_check_query that fails on a server in recovery, checked at every
// reuse; short connect and login retries), then that config, in key order.
// Requires HasPgBouncer.
std::string PgBouncerIni(const PostgresCluster& cluster);

// A stable digest (FNV-1a 64, hex) of `parts`: the pod template's
// kPgBouncerConfigAnnotation. Stable across processes, unlike absl::Hash.
std::string PgBouncerDigest(const std::vector<std::string>& parts);

Json BuildPgBouncerConfigMap(const PostgresCluster& cluster);
// `password`: quorum_pooler's; `admin_password`: the admin console's.
Json BuildPgBouncerAuthSecret(const PostgresCluster& cluster, const std::string& password,
                              const std::string& admin_password);
Json BuildPgBouncerTlsSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                             const std::string& cert_pem, const std::string& key_pem);
// `tls_digest`: a digest of the served certificate ("" unknown), so that a
// renewal rolls the pods.
Json BuildPgBouncerDeployment(const PostgresCluster& cluster, const std::string& tls_digest);
Json BuildPgBouncerService(const PostgresCluster& cluster);
// nullopt when spec.networkPolicy.enabled is false.
std::optional<Json> BuildPgBouncerNetworkPolicy(const PostgresCluster& cluster,
                                                const controllers::OperatorPeer& operator_peer);

// The pooler pods as a NetworkPolicy peer (the members' policy admits them
// to PostgreSQL's port).
Json PgBouncerPeer(const PostgresCluster& cluster);

// A spec.users connection Secret's `data` (base64) with pgbouncer-host,
// pgbouncer-port and pgbouncer-uri (from its username, password and dbname)
// when the pooler is on, without them when it is off. nullopt: nothing to
// change. Every other key stays as it is.
std::optional<Json> PgBouncerCredentialData(const PostgresCluster& cluster, const Json& data);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_PGBOUNCER_H_
