// The pgBackRest parts of the members (builders.h): the configuration
// inputs for spec.backups and spec.dataSource, the Secrets' volume, and the
// restore command Patroni's bootstrap runs (a dataSource, or an in-place
// restore under way).
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/tls.h"

namespace quorum::postgrescluster {

Json PgBackRestSecretsVolume(const std::string& name, const std::vector<std::string>& secrets) {
  // An empty folder without Secrets: pgBackRest refuses an include path that
  // does not exist.
  if (secrets.empty()) return {{"name", name}, {"emptyDir", Json::object()}};
  Json sources = Json::array();
  for (const std::string& secret : secrets) sources.push_back({{"secret", {{"name", secret}}}});
  return {{"name", name}, {"projected", {{"sources", sources}, {"defaultMode", 0440}}}};
}

Json PgBackRestSecretsMount(const std::string& name, std::string_view dir) {
  return {{"name", name}, {"mountPath", std::string(dir)}, {"readOnly", true}};
}

namespace {

// What every pgBackRest file of a member names: the stanza, PostgreSQL's
// data directory, port, socket and superuser, and where locks go.
patroni::PgBackRestInput MemberSide(const PostgresCluster& cluster) {
  patroni::PgBackRestInput in;
  in.stanza = kPgBackRestStanza;
  in.pg_path = DataDir(cluster.spec.postgres_version);
  in.pg_port = kPostgresPort;
  in.socket_dir = kTmpDir;
  in.pg_user = std::string(api::kSuperuserName);
  in.lock_dir = absl::StrCat(kTmpDir, "/pgbackrest");
  return in;
}

}  // namespace

std::optional<patroni::PgBackRestInput> BuildPgBackRestInput(const PostgresCluster& cluster,
                                                             ReposSide side) {
  if (!cluster.spec.backups.pgbackrest.has_value()) return std::nullopt;
  const api::PgBackRestSpec& spec = *cluster.spec.backups.pgbackrest;
  const Names n = NamesOf(cluster);
  patroni::PgBackRestInput in = MemberSide(cluster);
  for (const api::PgBackRestRepo& r : spec.repos) {
    if (r.IsVolume()) {
      patroni::PgBackRestRepoInput repo{.index = r.Index(), .path = RepoVolumePath(r.name)};
      if (side == ReposSide::kLocal) {
        repo.posix = true;
      } else {
        // The host presents the members' certificate; the members present
        // the pgBackRest client certificate.
        repo.host = patroni::PgBackRestRepoHost{
            .address = RepoHostDnsName(cluster),
            .port = kPgBackRestServerPort,
            .ca_file = absl::StrCat(kPostgresTlsDir, "/ca.crt"),
            .cert_file = absl::StrCat(kPgBackRestClientTlsDir, "/tls.crt"),
            .key_file = absl::StrCat(kPgBackRestClientTlsDir, "/tls.key")};
      }
      in.repos.push_back(std::move(repo));
      continue;
    }
    in.repos.push_back({.index = r.Index(),
                        .bucket = r.s3.bucket,
                        .endpoint = r.s3.endpoint,
                        .region = r.s3.region,
                        .path = absl::StrCat("/pgbackrest/", n.ns, "/", n.cluster, "/", r.name)});
  }
  in.global = spec.global;
  // The server presents the members' own certificate (its wildcard covers
  // every member's DNS name) and trusts the backup Jobs' client CA only.
  in.tls_server =
      patroni::PgBackRestTlsServer{.port = kPgBackRestServerPort,
                                   .cert_file = absl::StrCat(kPostgresTlsDir, "/tls.crt"),
                                   .key_file = absl::StrCat(kPostgresTlsDir, "/tls.key"),
                                   .ca_file = absl::StrCat(kPgBackRestClientCaDir, "/ca.crt"),
                                   .client_cn = kPgBackRestClientCn};
  return in;
}

std::optional<patroni::PgBackRestInput> BuildPgBackRestRestoreInput(
    const PostgresCluster& cluster) {
  if (!cluster.spec.data_source.pgbackrest.has_value()) return std::nullopt;
  const api::PgBackRestDataSource& src = *cluster.spec.data_source.pgbackrest;
  const Names n = NamesOf(cluster);
  patroni::PgBackRestInput in = MemberSide(cluster);
  const std::string source_ns = src.cluster_namespace.empty() ? n.ns : src.cluster_namespace;
  in.repos.push_back(
      {.index = src.repo.Index(),
       .bucket = src.repo.s3.bucket,
       .endpoint = src.repo.s3.endpoint,
       .region = src.repo.s3.region,
       .path = absl::StrCat("/pgbackrest/", source_ns, "/", src.cluster_name, "/", src.repo.name)});
  in.global = src.global;
  return in;
}

namespace {

// `pgbackrest <options> --repo=N [--set] [--type --target] restore`.
std::string RestoreCommand(const std::string& options, int repo, const std::string& set,
                           const api::PgBackRestRestoreTarget& t) {
  std::string cmd =
      absl::StrCat("pgbackrest ", options, " --repo=", repo, " --log-level-console=info");
  if (!set.empty()) absl::StrAppend(&cmd, " --set=", set);
  std::string type, target;
  if (!t.time.empty()) {
    absl::Time at;
    std::string err;
    if (absl::ParseTime(absl::RFC3339_full, t.time, &at, &err)) {
      type = "time";
      // PostgreSQL's form, in UTC (pgBackRest parses it to choose the backup).
      target = absl::FormatTime("%Y-%m-%d %H:%M:%E*S+00", at, absl::UTCTimeZone());
    }
  } else if (!t.lsn.empty()) {
    type = "lsn";
    target = t.lsn;
  } else if (!t.xid.empty()) {
    type = "xid";
    target = t.xid;
  }
  if (!type.empty()) {
    // Quoted for Patroni, which splits the command like a shell.
    absl::StrAppend(&cmd, " --type=", type, " \"--target=", target, "\" --target-action=promote");
  }
  return cmd + " restore";
}

}  // namespace

int InPlaceRestoreRepo(const PostgresCluster& cluster) {
  const std::optional<api::PgBackRestSpec>& pgbr = cluster.spec.backups.pgbackrest;
  if (!pgbr.has_value() || !pgbr->restore.has_value() || !pgbr->restore->enabled) return 0;
  for (const api::PgBackRestRepo& repo : pgbr->repos) {
    if (repo.name == pgbr->restore->repo_name) return repo.Index();
  }
  return 0;
}

bool RestoreRunning(const PostgresCluster& cluster) {
  const std::optional<api::PgBackRestRestoreStatus>& state = cluster.status.restore;
  return state.has_value() &&
         (state->phase == api::kRestoreStopping || state->phase == api::kRestoreRestoring);
}

bool RestoreStopsMembers(const PostgresCluster& cluster) {
  if (!RestoreRunning(cluster)) return false;
  // Restoring without a restore to run: the members would bootstrap empty.
  return cluster.status.restore->phase == api::kRestoreStopping || InPlaceRestoreRepo(cluster) == 0;
}

std::string PgBackRestRestoreCommand(const PostgresCluster& cluster) {
  // An in-place restore under way (it wins over the dataSource the cluster
  // was created from): the cluster's own file and repositories.
  const int repo = InPlaceRestoreRepo(cluster);
  if (RestoreRunning(cluster) && repo != 0) {
    const api::PgBackRestInPlaceRestore& r = *cluster.spec.backups.pgbackrest->restore;
    return RestoreCommand(
        patroni::CommandOptions(kPgBackRestConfigFile, patroni::kPgBackRestIncludeDir,
                                kPgBackRestStanza),
        repo, r.set, r.target);
  }
  if (const std::optional<api::PgBackRestDataSource>& src = cluster.spec.data_source.pgbackrest) {
    return RestoreCommand(patroni::CommandOptions(kPgBackRestRestoreConfigFile,
                                                  kPgBackRestRestoreIncludeDir, kPgBackRestStanza),
                          src->repo.Index(), src->set, src->target);
  }
  return "";
}

}  // namespace quorum::postgrescluster
