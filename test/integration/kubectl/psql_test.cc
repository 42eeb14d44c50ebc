// `kubectl quorum psql` against a real PostgreSQL (Debian's, started here on
// a loopback port with TLS, its certificate issued for the Service name
// pg-a.<namespace>.svc by a CA of the test's own) and the real control plane
// holding the cluster and its user Secrets as the operator writes them. The
// plugin execs the real local psql, given --host 127.0.0.1 and the port (the
// test machine does not resolve cluster DNS): the query runs as the Secret's
// user over TLS verified against the Service name; a Secret with another CA
// is refused by psql; no psql on PATH exits 3. The member pods themselves are
// not involved (the real run on the node is left to the e2e bed).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"
#include "src/runtime/certs.h"
#include "test/integration/kubectl/plugin_fixture.h"

namespace quorum::kubectl {
namespace {

using controllers::kPostgresClusters;
using testing::Json;

constexpr char kSuperuserPassword[] = "su-Secret-4f1d";
constexpr char kAppPassword[] = "app-Secret-9a2c";

std::string BinDir() {
  for (const char* dir :
       {"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"}) {
    if (std::filesystem::exists(std::string(dir) + "/postgres")) return dir;
  }
  return "";
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

int Sh(const std::string& command) { return std::system(command.c_str()); }

class KubectlQuorumPsqlTest : public testing::PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    bin_ = BinDir();
    ASSERT_FALSE(bin_.empty()) << "PostgreSQL server binaries not found (hack/deps.sh)";
    ASSERT_NE(getpwnam("postgres"), nullptr) << "no postgres system user";
    auto ca = runtime::GenerateCA("kubectl-psql-test-ca", absl::Hours(2), absl::Now());
    ASSERT_TRUE(ca.ok()) << ca.status();
    ca_pem_ = ca->cert_pem;
    auto cert =
        runtime::GenerateServingCert(*ca, "pg-a", {ServiceHost()}, {}, absl::Hours(1), absl::Now());
    ASSERT_TRUE(cert.ok()) << cert.status();
    StartPostgres(*cert);
    Create(kPostgresClusters, testing::PostgresClusterManifest("pg-a", "etcd-a"),
           {{"status", {{"users", {{{"name", "app"}, {"secretName", "pg-a-user-app"}}}}}}});
  }

  void TearDown() override {
    if (!dir_.empty()) {
      Sh(absl::StrCat("runuser -u postgres -- ", bin_, "/pg_ctl -D ", (dir_ / "data").string(),
                      " -m immediate stop >/dev/null 2>&1"));
      std::filesystem::remove_all(dir_);
    }
    PluginTest::TearDown();
  }

  std::string ServiceHost() { return "pg-a." + ns() + ".svc"; }

  void StartPostgres(const runtime::CertKeyPair& cert) {
    dir_ = std::filesystem::temp_directory_path() / absl::StrCat("quorum-kubectl-psql-", getpid());
    std::filesystem::create_directories(dir_);
    port_ = FreePort();
    std::ofstream(dir_ / "pw") << kSuperuserPassword << "\n";
    std::ofstream(dir_ / "server.crt") << cert.cert_pem;
    std::ofstream(dir_ / "server.key") << cert.key_pem;
    std::filesystem::permissions(dir_ / "server.key", std::filesystem::perms::owner_read,
                                 std::filesystem::perm_options::replace);
    ASSERT_EQ(Sh("chown -R postgres " + dir_.string()), 0);
    const std::string as_pg = "runuser -u postgres -- ";
    ASSERT_EQ(Sh(absl::StrCat(as_pg, bin_, "/initdb -D ", (dir_ / "data").string(),
                              " -U postgres --pwfile=", (dir_ / "pw").string(),
                              " --auth=scram-sha-256 >", (dir_ / "initdb.log").string(), " 2>&1")),
              0);
    ASSERT_EQ(
        Sh(absl::StrCat(
            as_pg, bin_, "/pg_ctl -D ", (dir_ / "data").string(), " -o '-p ", port_, " -k ",
            dir_.string(), " -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=",
            (dir_ / "server.crt").string(), " -c ssl_key_file=", (dir_ / "server.key").string(),
            "' -l ", (dir_ / "server.log").string(), " -w start >/dev/null")),
        0);
    ASSERT_EQ(Sh(absl::StrCat("PGPASSWORD=", kSuperuserPassword, " psql -q -h 127.0.0.1 -p ", port_,
                              " -U postgres -c \"create role app login password '", kAppPassword,
                              "'\" -c 'create database app owner app' postgres")),
              0);
  }

  // A client Secret as the operator writes it (postgrescluster/builders.cc).
  void CreateSecret(const std::string& name, const std::string& user, const std::string& password,
                    const std::string& dbname, const std::string& ca_pem) {
    auto b64 = [](const std::string& s) { return absl::Base64Escape(s); };
    auto created = client().Create(
        kube::kSecrets, ns(),
        {{"apiVersion", "v1"},
         {"kind", "Secret"},
         {"metadata", {{"name", name}}},
         {"data",
          {{"username", b64(user)},
           {"password", b64(password)},
           {"host", b64(ServiceHost())},
           {"port", b64("5432")},
           {"dbname", b64(dbname)},
           {"sslmode", b64("verify-full")},
           {"uri", b64(absl::StrCat("postgresql://", user, ":", password, "@", ServiceHost(),
                                    ":5432/", dbname, "?sslmode=verify-full"))},
           {"ca.crt", b64(ca_pem)}}}});
    ASSERT_TRUE(created.ok()) << created.status();
  }

  testing::PluginRun Psql(std::vector<std::string> args) {
    std::vector<std::string> all = {"psql",      "pg-a",   "--host",
                                    "127.0.0.1", "--port", std::to_string(port_)};
    all.insert(all.end(), args.begin(), args.end());
    return Run(all);
  }

  std::string bin_, ca_pem_;
  std::filesystem::path dir_;
  int port_ = 0;
};

constexpr char kWhoAmI[] =
    "select current_user || ' ' || current_database() || ' ' || ssl::text from pg_stat_ssl "
    "where pid = pg_backend_pid()";

TEST_F(KubectlQuorumPsqlTest, RunsAsTheSuperuserOrASpecUserOverVerifiedTls) {
  CreateSecret("pg-a-superuser", "postgres", kSuperuserPassword, "postgres", ca_pem_);
  CreateSecret("pg-a-user-app", "app", kAppPassword, "app", ca_pem_);
  const testing::PluginRun su = Psql({"--", "-tAc", kWhoAmI});
  EXPECT_EQ(su.exit_code, 0) << su.out << su.err;
  EXPECT_EQ(su.out, "postgres postgres true\n") << su.err;
  const testing::PluginRun app = Psql({"--user", "app", "--", "-tAc", kWhoAmI});
  EXPECT_EQ(app.exit_code, 0) << app.out << app.err;
  EXPECT_EQ(app.out, "app app true\n") << app.err;
  for (const auto* run : {&su, &app}) {
    EXPECT_EQ((run->out + run->err).find(kSuperuserPassword), std::string::npos);
    EXPECT_EQ((run->out + run->err).find(kAppPassword), std::string::npos);
  }
}

TEST_F(KubectlQuorumPsqlTest, ACertificateFromAnotherCaIsRefused) {
  auto other = runtime::GenerateCA("another-ca", absl::Hours(2), absl::Now());
  ASSERT_TRUE(other.ok()) << other.status();
  CreateSecret("pg-a-superuser", "postgres", kSuperuserPassword, "postgres", other->cert_pem);
  const testing::PluginRun run = Psql({"--", "-tAc", "select 1"});
  EXPECT_NE(run.exit_code, 0) << run.out;
  EXPECT_NE(run.err.find("certificate verify failed"), std::string::npos) << run.err;
}

TEST_F(KubectlQuorumPsqlTest, UnknownUsersMissingSecretsAndAMissingPsqlSayWhat) {
  const testing::PluginRun no_secret = Psql({});
  EXPECT_EQ(no_secret.exit_code, 2);
  EXPECT_EQ(no_secret.err,
            "error: Secret \"pg-a-superuser\" of PostgresCluster pg-a not found in "
            "namespace " +
                ns() + "\n");
  const testing::PluginRun no_user = Psql({"--user", "bob"});
  EXPECT_EQ(no_user.exit_code, 2);
  EXPECT_NE(no_user.err.find("has no user \"bob\" (it has postgres, app)"), std::string::npos)
      << no_user.err;
  const testing::PluginRun no_psql =
      testing::RunPlugin({"--kubeconfig", control_plane().kubeconfig, "-n", ns(), "psql", "pg-a"},
                         {{"KUBECONFIG", ""}, {"PATH", "/nonexistent"}});
  EXPECT_EQ(no_psql.exit_code, 3);
  EXPECT_NE(no_psql.err.find("psql not found on PATH"), std::string::npos) << no_psql.err;
}

}  // namespace
}  // namespace quorum::kubectl
