#include "src/controllers/postgresbackup/job.h"

#include "absl/strings/str_cat.h"
#include "api/postgresbackup.h"
#include "api/postgrescluster.h"
#include "src/base/json_access.h"
#include "src/controllers/common/job_outcome.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/patroni/pgbackrest.h"

namespace quorum::postgresbackup {
namespace {

namespace pg = postgrescluster;

constexpr char kServerCaDir[] = "/etc/pgbackrest/server-ca";
constexpr const char* kClientTlsDir = pg::kPgBackRestClientTlsDir;

Json Env(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

// PGBACKREST_PG<n>_<OPTION>: pgBackRest's environment form of pg<n>-<option>.
Json PgEnv(size_t n, const std::string& option, const std::string& value) {
  return Env(absl::StrCat("PGBACKREST_PG", n, "_", option), value);
}

Json Labels(const api::PostgresBackup& b) {
  return {{"app.kubernetes.io/name", "postgres-backup"},
          {"app.kubernetes.io/instance", b.metadata.name},
          {"app.kubernetes.io/managed-by", "quorum-operator"},
          {"app.kubernetes.io/part-of", b.spec.cluster_ref},
          {pg::kPgBackRestClientLabel, b.spec.cluster_ref}};
}

int RepoNumber(const std::string& repo_name) {
  return repo_name.size() == 5 ? repo_name[4] - '0' : 1;  // repo1..repo4 (admission)
}

// The volume repository the backup goes into, or null for an S3 one.
const api::PgBackRestRepo* VolumeRepo(const api::PostgresBackup& b,
                                      const api::PostgresCluster& cluster) {
  if (!cluster.spec.backups.pgbackrest.has_value()) return nullptr;
  for (const api::PgBackRestRepo& r : cluster.spec.backups.pgbackrest->repos) {
    if (r.name == b.spec.repo_name && r.IsVolume()) return &r;
  }
  return nullptr;
}

// A volume repository's Job: pgBackRest backs up only into a local
// repository, so the Job mounts the claim, on the repository host's node
// (where a ReadWriteOnce claim is attached), with the file in which the
// volumes are local.
void MountVolumeRepo(const api::PostgresCluster& cluster, const api::PgBackRestRepo& repo,
                     Json& pod_spec) {
  Json& container = pod_spec["containers"][0];
  for (Json& e : container["env"]) {
    if (json_access::Str(json_access::At(e, {"name"})) == "PGBACKREST_CONFIG")
      e["value"] = pg::kPgBackRestLocalReposConfigFile;
  }
  Json& volumes = pod_spec["volumes"];
  for (Json& v : volumes) {
    if (json_access::Str(json_access::At(v, {"name"})) != "config") continue;
    v["configMap"]["items"].push_back(
        {{"key", "pgbackrest-repo.conf"}, {"path", "pgbackrest-repo.conf"}});
  }
  volumes.push_back(
      {{"name", "repo"},
       {"persistentVolumeClaim", {{"claimName", pg::RepoClaimName(cluster, repo.name)}}}});
  container["volumeMounts"].push_back(
      {{"name", "repo"}, {"mountPath", pg::RepoVolumePath(repo.name)}});
  pod_spec["affinity"] = {
      {"podAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         Json::array(
             {{{"labelSelector", {{"matchLabels", pg::LabelsJson(pg::RepoHostSelector(cluster))}}},
               {"topologyKey", "kubernetes.io/hostname"}}})}}}};
}

}  // namespace

std::string JobName(const api::PostgresBackup& backup) {
  return controllers::OneShotJobName(backup.metadata.name, "backup");
}

std::vector<std::string> MemberPods(const api::PostgresCluster& cluster) {
  std::vector<std::string> out;
  for (const api::PostgresInstanceSet& set : cluster.spec.instances) {
    const std::string sts = pg::StatefulSetName(cluster, set.name);
    for (int32_t i = 0; i < set.replicas; ++i) out.push_back(absl::StrCat(sts, "-", i));
  }
  return out;
}

Json BuildBackupJob(const api::PostgresBackup& b, const api::PostgresCluster& cluster,
                    const std::vector<std::string>& pods, bool from_standby) {
  const pg::Names n = pg::NamesOf(cluster);
  const std::string data_dir = pg::DataDir(cluster.spec.postgres_version);
  Json env = Json::array({
      Env("PGBACKREST_CONFIG", pg::kPgBackRestConfigFile),
      Env("PGBACKREST_CONFIG_INCLUDE_PATH", std::string(patroni::kPgBackRestIncludeDir)),
      Env("PGBACKREST_STANZA", pg::kPgBackRestStanza),
      Env("PGBACKREST_BACKUP_STANDBY", from_standby ? "y" : "n"),
  });
  for (size_t i = 0; i < pods.size(); ++i) {
    const size_t k = i + 1;
    env.push_back(PgEnv(k, "HOST", pg::MemberDnsName(cluster, pods[i])));
    env.push_back(PgEnv(k, "HOST_TYPE", "tls"));
    env.push_back(PgEnv(k, "HOST_PORT", absl::StrCat(pg::kPgBackRestServerPort)));
    env.push_back(PgEnv(k, "HOST_CA_FILE", absl::StrCat(kServerCaDir, "/ca.crt")));
    env.push_back(PgEnv(k, "HOST_CERT_FILE", absl::StrCat(kClientTlsDir, "/tls.crt")));
    env.push_back(PgEnv(k, "HOST_KEY_FILE", absl::StrCat(kClientTlsDir, "/tls.key")));
    env.push_back(PgEnv(k, "PATH", data_dir));
    env.push_back(PgEnv(k, "PORT", absl::StrCat(pg::kPostgresPort)));
    env.push_back(PgEnv(k, "SOCKET_PATH", pg::kTmpDir));
    env.push_back(PgEnv(k, "USER", std::string(api::kSuperuserName)));
  }
  Json volumes = Json::array({
      {{"name", "tmp"}, {"emptyDir", Json::object()}},
      {{"name", "config"},
       {"configMap",
        {{"name", n.config_map},
         {"items", Json::array({{{"key", std::string(patroni::kPgBackRestConfigFileName)},
                                 {"path", std::string(patroni::kPgBackRestConfigFileName)}}})}}}},
      {{"name", "server-ca"},
       {"secret",
        {{"secretName", pg::MountedTlsSecret(cluster)},
         {"items", Json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})},
         {"defaultMode", 0440}}}},
      {{"name", "client-tls"},
       {"secret",
        {{"secretName", n.pgbackrest_client_secret},
         {"items", Json::array({{{"key", "tls.crt"}, {"path", "tls.crt"}},
                                {{"key", "tls.key"}, {"path", "tls.key"}}})},
         {"defaultMode", 0440}}}},
  });
  Json mounts = Json::array({
      {{"name", "tmp"}, {"mountPath", pg::kTmpDir}},
      {{"name", "config"}, {"mountPath", pg::kConfigDir}, {"readOnly", true}},
      {{"name", "server-ca"}, {"mountPath", kServerCaDir}, {"readOnly", true}},
      {{"name", "client-tls"}, {"mountPath", kClientTlsDir}, {"readOnly", true}},
  });
  if (const auto& pgbr = cluster.spec.backups.pgbackrest) {
    volumes.push_back(
        pg::PgBackRestSecretsVolume("pgbackrest-config", pgbr->configuration_secrets));
    mounts.push_back(
        pg::PgBackRestSecretsMount("pgbackrest-config", patroni::kPgBackRestIncludeDir));
  }
  Json container = {
      {"name", "pgbackrest"},
      {"image", pg::MemberImage(cluster)},
      {"command",
       Json::array({"/bin/sh", "-c", std::string(patroni::BackupScript()), "pgbackrest-backup",
                    b.spec.type, absl::StrCat(RepoNumber(b.spec.repo_name))})},
      {"env", env},
      {"volumeMounts", mounts},
      {"terminationMessagePolicy", "File"},
      {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}},
      {"securityContext", controllers::RestrictedContainerSecurity()},
  };
  Json pod_spec = controllers::OneShotPodSpec(container, volumes, pg::kPostgresUid);
  if (const api::PgBackRestRepo* repo = VolumeRepo(b, cluster)) {
    MountVolumeRepo(cluster, *repo, pod_spec);
  }
  return controllers::BuildOneShotJob(JobName(b), b.metadata.ns, Labels(b),
                                      {.api_version = std::string(api::kPostgresApiVersion),
                                       .kind = std::string(api::kPostgresBackupKind),
                                       .name = b.metadata.name,
                                       .uid = b.metadata.uid},
                                      kJobDeadlineSeconds, pod_spec);
}

}  // namespace quorum::postgresbackup
