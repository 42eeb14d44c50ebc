// Deterministic names, labels and paths of everything a PostgresCluster owns,
// derived from the typed cluster alone (pure; thread-safe).
//
// The primary Service carries the cluster's own name in both DCS modes, so a
// client always connects to <cluster>.<namespace>.svc: with the etcd DCS it
// selects the pod labelled role=primary; with the kubernetes DCS it has no
// selector and Patroni keeps its Endpoints (the leader lock, Patroni's scope
// is the cluster name) pointing at the primary.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NAMES_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NAMES_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/postgrescluster_types.h"
#include "src/base/json_access.h"

namespace quorum::postgrescluster {

using Json = nlohmann::json;
// Reads of the Kubernetes objects the controller observes (src/base/json_access.h).
using api::PostgresCluster;
using json_access::At;
using json_access::Str;

inline constexpr int kPostgresPort = 5432;
inline constexpr int kPatroniPort = 8008;
// The PostgreSQL port's name in Services and in Patroni's leader Endpoints.
inline constexpr char kPostgresPortName[] = "postgresql";
inline constexpr char kFieldManager[] = "quorum-operator";
inline constexpr char kContainerName[] = "database";
// Paths inside the member pods.
inline constexpr char kConfigDir[] = "/etc/patroni";
inline constexpr char kConfigFile[] = "/etc/patroni/patroni.yaml";
inline constexpr char kCallbackFile[] = "/etc/patroni/role-callback.sh";
inline constexpr char kEtcdTlsDir[] = "/etc/patroni/etcd-tls";
inline constexpr char kDataMount[] = "/pgdata";
inline constexpr char kTmpDir[] = "/tmp";
inline constexpr char kPgBackRestConfigFile[] = "/etc/patroni/pgbackrest.conf";
inline constexpr char kPgBackRestArchiveScript[] = "/etc/patroni/pgbackrest-archive.sh";
inline constexpr char kPgBackRestServerScript[] = "/etc/patroni/pgbackrest-server.sh";
inline constexpr char kPgBackRestServerConfigFile[] = "/etc/patroni/pgbackrest-server.conf";
// spec.dataSource.pgbackrest: the source repository's configuration (in the
// ConfigMap) and its Secrets' files.
inline constexpr char kPgBackRestRestoreConfigFile[] = "/etc/patroni/pgbackrest-restore.conf";
inline constexpr char kPgBackRestRestoreIncludeDir[] = "/etc/pgbackrest/restore.d";
// pgBackRest's stanza, the same in every cluster (Crunchy's choice): the
// repository path tells clusters apart.
inline constexpr char kPgBackRestStanza[] = "db";
// The members' pgBackRest TLS server (the `pgbackrest` container): its port,
// where it finds the CA of its clients' certificates, and the CommonName a
// client (a backup Job) must present.
inline constexpr int kPgBackRestServerPort = 8432;
inline constexpr char kPgBackRestContainerName[] = "pgbackrest";
inline constexpr char kPgBackRestClientCaDir[] = "/etc/pgbackrest/client-ca";
inline constexpr char kPgBackRestClientCn[] = "quorum-pgbackrest-client";
// Where a pgBackRest client (a member archiving to a volume repository, a
// backup Job) finds its certificate and key (<cluster>-pgbackrest-client).
inline constexpr char kPgBackRestClientTlsDir[] = "/etc/pgbackrest/client-tls";
// Volume repositories (spec.backups.pgbackrest.repos[].volume): the
// repository host's TLS server file, and the file of the side where the
// volumes are local (the backup Jobs of a volume repository), in the
// ConfigMap; each claim is mounted at <kRepoVolumeRoot>/repoN there.
inline constexpr char kPgBackRestRepoHostConfigFile[] = "/etc/patroni/pgbackrest-repo-host.conf";
inline constexpr char kPgBackRestLocalReposConfigFile[] = "/etc/patroni/pgbackrest-repo.conf";
inline constexpr char kRepoVolumeRoot[] = "/pgbackrest";
// The label of a cluster's backup Job pods, value the cluster's name: the
// NetworkPolicy lets them reach the members' pgBackRest servers.
inline constexpr char kPgBackRestClientLabel[] = "postgres.quorum.dev/pgbackrest-client";
// The PostgreSQL image's user (images/postgres/Dockerfile).
inline constexpr int kPostgresUid = 999;

struct Names {
  std::string cluster;             // metadata.name; also Patroni's scope
  std::string ns;                  // metadata.namespace
  std::string config_map;          // <cluster>-patroni: patroni.yaml + role-callback.sh
  std::string primary_service;     // <cluster>
  std::string replica_service;     // <cluster>-replicas
  std::string pods_service;        // <cluster>-pods (headless, pod DNS)
  std::string config_service;      // <cluster>-config (kubernetes DCS: Patroni's config object)
  std::string service_account;     // <cluster>-instance
  std::string role;                // <cluster>-instance (Role and RoleBinding)
  std::string superuser_secret;    // <cluster>-superuser
  std::string replication_secret;  // <cluster>-replication
  std::string pdb;                 // <cluster>
  std::string ca_secret;           // <cluster>-ca: the generated CA (tls.h)
  std::string tls_secret;          // <cluster>-tls: the members' server certificate
  std::string restapi_secret;      // <cluster>-patroni-api: REST API basic-auth credentials
  std::string network_policy;      // <cluster>
  // <cluster>-pgbackrest-client (backups only): the backup Jobs' client
  // certificate (tls.crt, tls.key) and its CA (ca.crt), which the members'
  // pgBackRest servers trust.
  std::string pgbackrest_client_secret;
  // <cluster>-repo-host (volume repositories only): the repository host's
  // StatefulSet, headless Service and NetworkPolicy.
  std::string repo_host;
};

Names NamesOf(const PostgresCluster& cluster);

std::string StatefulSetName(const PostgresCluster& cluster, const std::string& instance_set);

// The pods the spec asks for: <StatefulSetName>-<ordinal> of every instance
// set, in spec order.
std::vector<std::string> MemberPodNames(const PostgresCluster& cluster);

// Volume repositories: whether spec.backups.pgbackrest has one (then the
// cluster has a repository host); the host's DNS name through its headless
// Service, <cluster>-repo-host.<ns>.svc (the members' certificate carries
// it); the PVC of repository `repo` (repoN-<cluster>-repo-host-0).
bool HasVolumeRepos(const PostgresCluster& cluster);
std::string RepoHostDnsName(const PostgresCluster& cluster);
std::string RepoClaimName(const PostgresCluster& cluster, const std::string& repo);

// <cluster>-user-<name>, with '_' turned into '-' (Secret names are DNS names).
std::string UserSecretName(const PostgresCluster& cluster, const std::string& user);

// clusterRef to an EtcdCluster with auth on (etcd_user.h): the pods' own etcd
// user and role, "quorum-pg.<namespace>.<cluster>" (a namespace has no dots,
// so two clusters never share one); the Secret with its password,
// <cluster>-etcd-user; the Secret with the pods' etcd client certificate,
// <cluster>-etcd-client.
std::string EtcdUserName(const PostgresCluster& cluster);
std::string EtcdUserSecretName(const PostgresCluster& cluster);
std::string EtcdClientSecretName(const PostgresCluster& cluster);

// Labels on every owned object; the selector of all member pods; the
// selector of one instance set's pods.
std::map<std::string, std::string> CommonLabels(const PostgresCluster& cluster);
std::map<std::string, std::string> ClusterSelector(const PostgresCluster& cluster);
std::map<std::string, std::string> InstanceSelector(const PostgresCluster& cluster,
                                                    const std::string& set);

// The repository host's pod labels and selector: its own
// app.kubernetes.io/name (postgres-repo-host) and the cluster as instance;
// never ClusterSelector's label, which means "a member".
std::map<std::string, std::string> RepoHostSelector(const PostgresCluster& cluster);

// A label map as a JSON object.
Json LabelsJson(const std::map<std::string, std::string>& labels);

Json OwnerReference(const PostgresCluster& cluster);
Json Metadata(const PostgresCluster& cluster, const std::string& name);

// Members across all instance sets.
int DesiredMembers(const PostgresCluster& cluster);

// spec.patroni.dcs.type is etcd (absent means kubernetes).
bool UsesEtcd(const PostgresCluster& cluster);
// spec.patroni.podAPIAccess (default true).
bool PodsHaveApiAccess(const PostgresCluster& cluster);
// Patroni's key prefix for the etcd DCS: spec.patroni.dcs.etcd.namespace, or
// /quorum/<namespace>/ so same-named clusters of two namespaces never share keys.
std::string KeyNamespace(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_NAMES_H_
