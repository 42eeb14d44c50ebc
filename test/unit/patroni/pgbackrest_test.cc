// pgBackRest's configuration file and WAL commands for a PostgresCluster
// member (src/patroni/pgbackrest.h).
#include "src/patroni/pgbackrest.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::patroni {
namespace {

PgBackRestInput Input() {
  PgBackRestInput in;
  in.stanza = "db";
  in.repos = {{.index = 1,
               .bucket = "backups",
               .endpoint = "s3.eu-west-1.amazonaws.com",
               .region = "eu-west-1",
               .path = "/pgbackrest/ns/hippo/repo1"},
              {.index = 3,
               .bucket = "local",
               .endpoint = "10.0.0.1:9000",
               .region = "us-east-1",
               .path = "/pgbackrest/ns/hippo/repo3"}};
  in.pg_path = "/pgdata/pg17";
  in.pg_port = 5432;
  in.socket_dir = "/tmp";
  in.pg_user = "postgres";
  in.lock_dir = "/tmp/pgbackrest";
  return in;
}

TEST(PgBackRestConfigTest, RendersEveryRepositoryAndTheStanza) {
  EXPECT_EQ(RenderPgBackRestConfig(Input()),
            "# Written by Quorum (spec.backups.pgbackrest); secrets come from conf.d.\n"
            "[global]\n"
            "lock-path=/tmp/pgbackrest\n"
            "log-level-file=off\n"
            "repo1-path=/pgbackrest/ns/hippo/repo1\n"
            "repo1-s3-bucket=backups\n"
            "repo1-s3-endpoint=s3.eu-west-1.amazonaws.com\n"
            "repo1-s3-region=eu-west-1\n"
            "repo1-type=s3\n"
            "repo3-path=/pgbackrest/ns/hippo/repo3\n"
            "repo3-s3-bucket=local\n"
            "repo3-s3-endpoint=10.0.0.1\n"
            "repo3-s3-region=us-east-1\n"
            "repo3-storage-port=9000\n"
            "repo3-type=s3\n"
            "\n"
            "[db]\n"
            "pg1-path=/pgdata/pg17\n"
            "pg1-port=5432\n"
            "pg1-socket-path=/tmp\n"
            "pg1-user=postgres\n");
}

TEST(PgBackRestConfigTest, TheUsersOptionsJoinAndTheirPathWins) {
  PgBackRestInput in = Input();
  in.global = {{"repo1-path", "/db"}, {"repo1-retention-full", "7"}, {"start-fast", "y"}};
  const std::string conf = RenderPgBackRestConfig(in);
  EXPECT_TRUE(absl::StrContains(conf, "\nrepo1-path=/db\n")) << conf;
  EXPECT_FALSE(absl::StrContains(conf, "repo1-path=/pgbackrest")) << conf;
  EXPECT_TRUE(absl::StrContains(conf, "\nrepo1-retention-full=7\n")) << conf;
  EXPECT_TRUE(absl::StrContains(conf, "\nstart-fast=y\n")) << conf;
  // The user's options stay in [global], before the stanza's section.
  EXPECT_LT(conf.find("start-fast"), conf.find("[db]")) << conf;
}

TEST(PgBackRestConfigTest, SameInputSameBytes) {
  EXPECT_EQ(RenderPgBackRestConfig(Input()), RenderPgBackRestConfig(Input()));
}

TEST(PgBackRestCommandsTest, NameTheFileTheIncludeDirectoryAndTheStanza) {
  const std::string options =
      CommandOptions("/etc/patroni/pgbackrest.conf", "/etc/pgbackrest/conf.d", "db");
  EXPECT_EQ(options,
            "--config=/etc/patroni/pgbackrest.conf --config-include-path=/etc/pgbackrest/conf.d "
            "--stanza=db");
  EXPECT_EQ(ArchiveCommand("/etc/patroni/pgbackrest-archive.sh", options),
            "/etc/patroni/pgbackrest-archive.sh \"%p\" " + options);
  EXPECT_EQ(RestoreCommand(options), "pgbackrest " + options + " archive-get %f \"%p\"");
}

TEST(PgBackRestCommandsTest, TheArchiveScriptCreatesAMissingStanzaOnce) {
  const std::string script(ArchiveScript());
  EXPECT_TRUE(absl::StartsWith(script, "#!/bin/sh\n"));
  EXPECT_TRUE(absl::StrContains(script, "stanza-create")) << script;
  EXPECT_TRUE(absl::StrContains(script, "archive-push")) << script;
}

TEST(PgBackRestConfigTest, TheTlsServerHasAFileWithoutRepositories) {
  PgBackRestInput in = Input();
  EXPECT_EQ(RenderPgBackRestServerConfig(in), "");
  in.tls_server = PgBackRestTlsServer{.port = 8432,
                                      .cert_file = "/tls/tls.crt",
                                      .key_file = "/tls/tls.key",
                                      .ca_file = "/ca/ca.crt",
                                      .client_cn = "backup-client"};
  EXPECT_EQ(RenderPgBackRestServerConfig(in),
            "# Written by Quorum: pgBackRest's TLS server in the member (backup Jobs connect);\n"
            "# no repository: the server's side only reads the data directory.\n"
            "[global]\n"
            "lock-path=/tmp/pgbackrest\n"
            "log-level-file=off\n"
            "tls-server-address=*\n"
            "tls-server-auth=backup-client=db\n"
            "tls-server-ca-file=/ca/ca.crt\n"
            "tls-server-cert-file=/tls/tls.crt\n"
            "tls-server-key-file=/tls/tls.key\n"
            "tls-server-port=8432\n"
            "\n"
            "[db]\n"
            "pg1-path=/pgdata/pg17\n"
            "pg1-port=5432\n"
            "pg1-socket-path=/tmp\n"
            "pg1-user=postgres\n");
  // The repositories' file never names the server's options.
  EXPECT_FALSE(absl::StrContains(RenderPgBackRestConfig(in), "tls-server"));
}

// A volume repository: local where it is mounted (posix), else through the
// repository host's TLS server with the client's certificate; no S3 keys.
TEST(PgBackRestConfigTest, AVolumeRepositoryIsLocalOrBehindTheRepositoryHost) {
  PgBackRestInput in = Input();
  in.repos = {{.index = 2, .posix = true, .path = "/pgbackrest/repo2"}};
  const std::string local = RenderPgBackRestConfig(in);
  EXPECT_TRUE(absl::StrContains(local, "repo2-path=/pgbackrest/repo2\nrepo2-type=posix\n"))
      << local;
  EXPECT_FALSE(absl::StrContains(local, "s3")) << local;
  in.repos = {{.index = 2,
               .host = PgBackRestRepoHost{.address = "hippo-repo-host.ns.svc",
                                          .port = 8432,
                                          .ca_file = "/tls/ca.crt",
                                          .cert_file = "/client/tls.crt",
                                          .key_file = "/client/tls.key"},
               .path = "/pgbackrest/repo2"}};
  EXPECT_TRUE(absl::StrContains(RenderPgBackRestConfig(in),
                                "repo2-host=hippo-repo-host.ns.svc\n"
                                "repo2-host-ca-file=/tls/ca.crt\n"
                                "repo2-host-cert-file=/client/tls.crt\n"
                                "repo2-host-key-file=/client/tls.key\n"
                                "repo2-host-port=8432\n"
                                "repo2-host-type=tls\n"
                                "repo2-path=/pgbackrest/repo2\n"))
      << RenderPgBackRestConfig(in);
  EXPECT_FALSE(absl::StrContains(RenderPgBackRestConfig(in), "repo2-type"));
  // The host's own file: the TLS server, without a stanza or repository.
  EXPECT_EQ(RenderPgBackRestRepoHostConfig(in), "");
  in.tls_server = PgBackRestTlsServer{.port = 8432,
                                      .cert_file = "/tls/tls.crt",
                                      .key_file = "/tls/tls.key",
                                      .ca_file = "/ca/ca.crt",
                                      .client_cn = "backup-client"};
  const std::string host = RenderPgBackRestRepoHostConfig(in);
  EXPECT_TRUE(absl::StrContains(host, "tls-server-auth=backup-client=db\n")) << host;
  EXPECT_FALSE(absl::StrContains(host, "[db]")) << host;
  EXPECT_FALSE(absl::StrContains(host, "repo2")) << host;
}

}  // namespace
}  // namespace quorum::patroni
