// pgBackRest's side of a PostgresCluster member with backups
// (spec.backups.pgbackrest), as pure builders: the configuration file, and
// the commands PostgreSQL runs to archive and fetch WAL. Like the Patroni
// file (config.h) it is the same for every member and holds no secret: S3
// keys and other secrets come from the files of the user's Secrets in the
// include directory (conf.d), which pgBackRest reads after this file.
//
// Layout of the rendered file (pgBackRest 2.4x option names):
//   [global]  log-level-file=off, lock-path, then per repository N:
//             S3: repoN-type=s3, repoN-path, repoN-s3-bucket, repoN-s3-endpoint,
//             repoN-storage-port (with host:port endpoints), repoN-s3-region;
//             a volume where it is mounted: repoN-type=posix, repoN-path;
//             a volume elsewhere: repoN-host, repoN-host-type=tls,
//             repoN-host-port, repoN-host-{ca,cert,key}-file, repoN-path (the
//             path on the host, which the client sends it);
//             then the user's global options (validated at admission: none of
//             them names a key above, except repoN-path, which replaces the
//             default)
//   [<stanza>] pg1-path, pg1-port, pg1-socket-path, pg1-user
// Lines are sorted within a section, so the same input gives the same bytes.
// The TLS server (`pgbackrest server` in the member's `pgbackrest` container)
// has a file of its own: [global] log-level-file, lock-path and tls-server-*,
// and the same [<stanza>]; no repository, whose options (and keys) the
// server's side would otherwise demand.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_PGBACKREST_H_
#define QUORUM_SRC_PATRONI_PGBACKREST_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quorum::patroni {

// The file name of the archive script (ArchiveScript()) in the config directory.
inline constexpr std::string_view kArchiveScriptFileName = "pgbackrest-archive.sh";
// The file name of the configuration in the config directory.
inline constexpr std::string_view kPgBackRestConfigFileName = "pgbackrest.conf";
// Where the user's configuration Secrets are mounted: pgBackRest's default
// include directory, read after the main file.
inline constexpr std::string_view kPgBackRestIncludeDir = "/etc/pgbackrest/conf.d";

// A repository host's pgBackRest TLS server as its clients see it:
// repoN-host, repoN-host-type=tls and the files of the client's TLS.
struct PgBackRestRepoHost {
  std::string address;  // a DNS name the server's certificate carries
  int port = 8432;
  std::string ca_file;    // the CA that issued the server's certificate
  std::string cert_file;  // the client's certificate and key
  std::string key_file;
};

struct PgBackRestRepoInput {
  int index = 1;  // N in repoN
  // An S3 repository (none of `posix` and `host`):
  std::string bucket;
  std::string endpoint;  // host or host:port
  std::string region;
  // A volume repository: local (repoN-type=posix) where the volume is
  // mounted, else reached through the repository host.
  bool posix = false;
  std::optional<PgBackRestRepoHost> host;
  std::string path;  // repoN-path; for S3 the user's global repoN-path wins
};

// pgBackRest's TLS server in a member (`pgbackrest server`): what the backup
// Job's pgBackRest talks to. Clients must present a certificate issued by
// `ca_file` whose CommonName is `client_cn`; they may then act on the stanza.
struct PgBackRestTlsServer {
  int port = 8432;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  std::string client_cn;
};

struct PgBackRestInput {
  std::string stanza;
  std::vector<PgBackRestRepoInput> repos;
  std::map<std::string, std::string> global;  // the user's options
  std::string pg_path;                        // PGDATA
  int pg_port = 5432;
  std::string socket_dir;  // PostgreSQL's unix_socket_directories
  std::string pg_user;     // connects over the socket (peer authentication)
  std::string lock_dir;    // writable, e.g. under /tmp
  std::optional<PgBackRestTlsServer> tls_server;
};

// The configuration file's text.
std::string RenderPgBackRestConfig(const PgBackRestInput& in);
// The TLS server's file; "" without in.tls_server.
std::string RenderPgBackRestServerConfig(const PgBackRestInput& in);
// The repository host's TLS server file: [global] only (lock-path,
// log-level-file and tls-server-*); clients send the repository's options
// with each command. "" without in.tls_server.
std::string RenderPgBackRestRepoHostConfig(const PgBackRestInput& in);
inline constexpr std::string_view kPgBackRestServerConfigFileName = "pgbackrest-server.conf";

// The options every pgBackRest command of the pod needs:
// "--config=<file> --config-include-path=<dir> --stanza=<stanza>". The include
// directory must be named: with --config alone pgBackRest skips its default.
std::string CommandOptions(std::string_view config_path, std::string_view include_dir,
                           std::string_view stanza);

// archive_command: the archive script at `script_path`, the segment, then
// `options` (CommandOptions).
std::string ArchiveCommand(std::string_view script_path, std::string_view options);

// restore_command: the recovery of a restore fetches archived WAL with it.
std::string RestoreCommand(std::string_view options);

// The archive script's bytes (src/patroni/pgbackrest-archive.sh).
std::string_view ArchiveScript();

// The file name of the TLS server's wrapper (ServerScript()).
inline constexpr std::string_view kServerScriptFileName = "pgbackrest-server.sh";
// The wrapper's bytes (src/patroni/pgbackrest-server.sh): `pgbackrest-server.sh
// FILE...` runs `pgbackrest server` and reloads it when one of the files (its
// certificates) changes.
std::string_view ServerScript();

// The backup Job's script (src/patroni/pgbackrest-backup.sh), run as
// `sh -c SCRIPT pgbackrest-backup TYPE REPO_NUMBER`.
std::string_view BackupScript();

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_PGBACKREST_H_
