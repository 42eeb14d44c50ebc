// Pure builders of the objects a PostgresCluster owns (API.md, issue 5):
// the Patroni ConfigMap, the instance StatefulSets, the Services (primary,
// replicas, headless pods, and Patroni's config Service with the kubernetes
// DCS only), the pods' ServiceAccount/Role/RoleBinding (only while the pods
// have API access; Endpoints rights only with the kubernetes DCS), the
// PodDisruptionBudget and the credential Secrets. Every object carries the
// cluster's owner reference and the fields Quorum owns, ready for
// server-side apply. Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BUILDERS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BUILDERS_H_

#include <optional>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/patroni/config.h"
#include "src/patroni/pgbackrest.h"

namespace quorum::postgrescluster {

// Patroni's configuration for this cluster (the defaulted spec + the DCS).
patroni::ConfigInput BuildPatroniInput(const PostgresCluster& cluster, const DcsResolution& dcs);

// The dynamic configuration Patroni should hold (what PATCH /config makes
// true): patroni::DynamicConfig of the input above, plus a null (remove) for
// each key Quorum owns that dynamicConfiguration sets and Quorum itself does
// not, so that a key stored before admission refused it leaves Patroni.
Json DesiredDynamicConfig(const PostgresCluster& cluster, const DcsResolution& dcs);

Json BuildConfigMap(const PostgresCluster& cluster, const patroni::ConfigInput& input);
Json BuildStatefulSet(const PostgresCluster& cluster, const api::PostgresInstanceSet& instance_set,
                      const patroni::ConfigInput& input, const DcsResolution& dcs);
// Primary, replicas, pods and (kubernetes DCS) config Services.
std::vector<Json> BuildServices(const PostgresCluster& cluster);
// ServiceAccount, Role, RoleBinding; empty without pod API access.
std::vector<Json> BuildRbac(const PostgresCluster& cluster);
// maxUnavailable 1 over all members; nullopt with fewer than two members.
std::optional<Json> BuildPodDisruptionBudget(const PostgresCluster& cluster);

// A Secret of credentials, created once and never rewritten (passwords must
// survive operator restarts): username, password, and for connectable roles
// host, port, dbname, sslmode (verify-full) and a uri; ca.crt is the CA
// that signs the members' certificate (`ca_pem`, "" to leave it out).
Json BuildCredentialSecret(const PostgresCluster& cluster, const std::string& name,
                           const std::string& username, const std::string& password,
                           const std::string& dbname, const std::string& ca_pem);

// A connection Secret made before TLS (or before the CA changed) lacks what
// BuildCredentialSecret writes now: `data` (the Secret's base64 data) with
// ca.crt set to `ca_pem` (when given and different), and for connectable
// roles sslmode (verify-full) and the uri's sslmode added when missing. The
// password, and every other key, stay as they are. nullopt: nothing to add.
std::optional<Json> UpgradedCredentialData(const Json& data, const std::string& username,
                                           const std::string& ca_pem);

// pg_hba.conf, first match wins: with backups, the superuser over the pod's
// socket as the same OS user (peer: pgBackRest needs no password); Quorum's
// roles (postgres, replicator) by password, over TLS from the network
// (replication too), and with spec.proxy.pgBouncer quorum_pooler to the
// database postgres; the exporter's quorum_monitor from the pod's loopback
// only (monitoring.h); then spec.authentication.rules in order; then the
// catch-alls: every role by password on the socket and over TLS, plus a plain
// `host` rule when spec.tls.allowPlaintext. A user's rule thus can narrow or
// reject any role but Quorum's, never lock those out.
std::vector<std::string> PgHba(const PostgresCluster& cluster);

// The members' image: spec.image, or the default of spec.postgresVersion.
std::string MemberImage(const PostgresCluster& cluster);
// The pod securityContext of the members and the repository host: the
// image's postgres user (non-root), fsGroup changed only on a new volume,
// the runtime's seccomp profile.
Json PostgresPodSecurityContext();

// A volume with the files of pgBackRest configuration `secrets` (projected,
// mode 0440), or an empty folder without any; and its read-only mount at `dir`.
Json PgBackRestSecretsVolume(const std::string& name, const std::vector<std::string>& secrets);
Json PgBackRestSecretsMount(const std::string& name, std::string_view dir);

// spec.dataSource.pgbackrest: the source repository's configuration
// (pgbackrest-restore.conf in the ConfigMap), and the command Patroni's
// bootstrap runs instead of initdb: pgbackrest restore with the set and
// target (a time in UTC as PostgreSQL writes it), promoting at the target.
// nullopt without a dataSource. The command is also the in-place restore's
// (restore.h) while status.backups.pgbackrest.restore is Stopping or
// Restoring: then with the cluster's own configuration file and the
// repository spec.backups.pgbackrest.restore names. "" otherwise.
std::optional<patroni::PgBackRestInput> BuildPgBackRestRestoreInput(const PostgresCluster& cluster);
std::string PgBackRestRestoreCommand(const PostgresCluster& cluster);
// The repository number an in-place restore would use: that of
// spec.backups.pgbackrest.restore.repoName when restore is enabled; 0 when
// there is nothing to run.
int InPlaceRestoreRepo(const PostgresCluster& cluster);
// An in-place restore is under way: status.backups.pgbackrest.restore is
// Stopping or Restoring.
bool RestoreRunning(const PostgresCluster& cluster);
// The StatefulSets ask for 0 pods: an in-place restore is Stopping, or is
// Restoring while the spec no longer says what to restore (members started
// then would bootstrap an empty database on the wiped volumes).
bool RestoreStopsMembers(const PostgresCluster& cluster);

// Who uses a pgBackRest configuration: the members (a volume repository is
// reached through the repository host's TLS server), or a pod where the
// volumes are mounted (the backup Job of a volume repository: pgBackRest
// backs up only into a repository that is local).
enum class ReposSide { kMembers, kLocal };

// pgBackRest's configuration for spec.backups.pgbackrest; nullopt without it.
// An S3 repository's default path is /pgbackrest/<namespace>/<cluster>/repoN,
// a volume's RepoVolumePath.
std::optional<patroni::PgBackRestInput> BuildPgBackRestInput(const PostgresCluster& cluster,
                                                             ReposSide side = ReposSide::kMembers);

// Volume repositories (spec.backups.pgbackrest.repos[].volume): where
// repository `repo` is mounted on the repository host and in backup Jobs,
// /pgbackrest/repoN; the host's StatefulSet <cluster>-repo-host (one pod:
// `pgbackrest server` with the members' certificate, admitting the
// pgBackRest client certificate; a claim template per volume repository,
// retained like the members'); its headless Service (the name the members
// connect to). nullopt without volume repositories.
std::string RepoVolumePath(const std::string& repo);
std::optional<Json> BuildRepoHostStatefulSet(const PostgresCluster& cluster);
std::optional<Json> BuildRepoHostService(const PostgresCluster& cluster);

// Every credential Secret the cluster needs: (secret name, username, dbname).
struct CredentialSpec {
  std::string secret, username, dbname;
};
std::vector<CredentialSpec> CredentialSecrets(const PostgresCluster& cluster);

// The members' data directory and PostgreSQL binaries for a major.
std::string DataDir(int major);
std::string BinDir(int major);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_BUILDERS_H_
