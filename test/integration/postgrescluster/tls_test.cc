// The database path secured (issue 15.1, 15.2) on real Patroni + PostgreSQL
// (two members on loopback, etcd DCS): the members run the configuration the
// operator builds (BuildPatroniInput: ssl=on, hostssl-only pg_hba,
// replication verify-ca, REST API basic auth from the environment) with a
// server certificate issued like EnsureTls issues it (the cluster's names,
// the CA's signature). Checks that a client with the CA connects with
// sslmode=verify-full under the primary Service's name, that a connection
// without TLS is refused, that replication runs over TLS (pg_stat_ssl on the
// primary), that a certificate due for renewal is replaced and served after
// a reload while clients keep working (PostgreSQL and the REST API), and the
// REST API over HTTPS: the operator's client connects to the member's
// address and checks the pod's DNS name and the cluster's CA (another CA or
// name is refused), an unauthenticated POST /switchover gets 401 while the
// operator's (with the Secret's credentials) switches over, the members
// check each other's certificate (a switchover is refused while a member's
// CA file is wrong), patronictl verifies and switches over, the readiness
// probe runs over HTTPS, and a killed leader is replaced by the replica.
#include "src/controllers/postgrescluster/tls.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/observe.h"
#include "src/controllers/postgrescluster/users.h"
#include "src/patroni/config.h"
#include "src/patroni/readiness.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/certs.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/patroni/patroni_harness.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

using etcd::testing::EtcdHarness;
using etcd::testing::FreePorts;
using patroni::testing::PatroniHarness;
using patroni::testing::RunCapture;
using patroni::testing::Trim;
using testenv::Eventually;

constexpr int kMembers = 2;
constexpr char kSuperuserPassword[] = "su-pass-tls";
const patroni::BasicAuth kRestAuth{"quorum", "rest-pass-tls"};

class PostgresTlsTest : public testenv::IntegrationTest {
 protected:
  std::string Pod(int k) const { return absl::StrCat("pg-", k); }
  std::string ApiUrl(int k) const { return absl::StrCat("https://127.0.0.1:", ports_[2 * k]); }
  // What the operator calls: the member's address, its pod DNS name checked
  // in the certificate, the cluster's CA (observe.h's MemberEndpoint).
  // With the operator's client certificate (restapi.verify_client:
  // optional: unsafe calls need one).
  patroni::Endpoint Member(int k) const {
    return MemberEndpoint(Cluster(), Pod(k), ApiUrl(k), ca_.cert_pem, operator_client_);
  }
  int PgPort(int k) const { return ports_[2 * k + 1]; }
  std::string TlsDir() const { return patroni_.root() + "/tls"; }
  std::string CaFile() const { return TlsDir() + "/ca.crt"; }
  std::string Logs() {
    return patroni_.LogTails([this](int k) { return Pod(k); });
  }

  PostgresCluster Cluster() const {
    Json c = {
        {"apiVersion", "postgres.quorum.dev/v1alpha1"},
        {"kind", "PostgresCluster"},
        {"metadata", {{"name", "pg"}, {"namespace", ns()}, {"uid", "u1"}}},
        {"spec",
         {{"postgresVersion", 17},
          {"instances",
           {{{"name", "main"},
             {"replicas", kMembers},
             {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
          {"patroni",
           {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {"http://etcd:2379"}}}}}}}},
          // A rule of the user's (issue 34): app may not reach the postgres
          // database; PostgreSQL must parse the generated pg_hba.
          {"authentication",
           {{"rules",
             {{{"users", {"app"}}, {"databases", {"postgres"}}, {"method", "reject"}}}}}}}}};
    absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return *parsed;
  }

  // Writes the certificate files as the kubelet would mount them (the
  // harness runs the members as the postgres user: key 0600, theirs).
  void WriteCert(const runtime::CertKeyPair& cert) {
    std::filesystem::create_directories(TlsDir());
    patroni_.GiveAway(TlsDir());
    std::ofstream(CaFile()) << ca_.cert_pem;
    std::ofstream(TlsDir() + "/tls.crt.new") << cert.cert_pem;
    std::ofstream(TlsDir() + "/tls.key.new") << cert.key_pem;
    for (const char* f : {"/tls.crt.new", "/tls.key.new", "/ca.crt"}) {
      patroni_.GiveAway(TlsDir() + f);
      chmod((TlsDir() + f).c_str(), 0600);
    }
    // An atomic swap, like the kubelet's symlink flip.
    std::filesystem::rename(TlsDir() + "/tls.crt.new", TlsDir() + "/tls.crt");
    std::filesystem::rename(TlsDir() + "/tls.key.new", TlsDir() + "/tls.key");
  }

  runtime::CertKeyPair Issue(absl::Duration validity) {
    absl::StatusOr<runtime::CertKeyPair> c =
        runtime::GenerateMemberCert(ca_, "quorum-postgres", ServerCertDnsNames(Cluster()),
                                    {"127.0.0.1"}, validity, absl::Now());
    EXPECT_TRUE(c.ok()) << c.status();
    return *c;
  }

  // psql through member k under the primary Service's DNS name (hostaddr
  // reaches the member; verify-full checks the name against the certificate).
  absl::StatusOr<std::string> Psql(int k, const std::string& sslmode, const std::string& sql) {
    return PsqlAs(k, "postgres", kSuperuserPassword, "postgres", sslmode, sql);
  }
  absl::StatusOr<std::string> PsqlAs(int k, const std::string& user, const std::string& password,
                                     const std::string& db, const std::string& sslmode,
                                     const std::string& sql) {
    const std::string conninfo = absl::StrCat(
        "host=pg.", ns(), ".svc hostaddr=127.0.0.1 port=", PgPort(k), " user=", user,
        " dbname=", db, " connect_timeout=3 sslmode=", sslmode, " sslrootcert=", CaFile());
    int rc = 0;
    const std::string out =
        RunCapture(absl::StrCat("PGPASSWORD='", password, "' '", patroni_.binaries().pg_bin_dir,
                                "/psql' -X -q -A -t -v ON_ERROR_STOP=1 '", conninfo, "' -c \"", sql,
                                "\" 2>&1"),
                   &rc);
    if (rc != 0) return absl::UnavailableError(out);
    return Trim(out);
  }

  // The serial of the certificate member k serves (openssl's STARTTLS for
  // PostgreSQL).
  std::string ServedSerial(int k) {
    return Trim(RunCapture(
        absl::StrCat("openssl s_client -starttls postgres -connect 127.0.0.1:", PgPort(k),
                     " </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null")));
  }
  // ... and on its REST API.
  std::string RestSerial(int k) {
    return Trim(RunCapture(
        absl::StrCat("openssl s_client -connect 127.0.0.1:", ports_[2 * k],
                     " </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null")));
  }

  // The pod's readiness probe command (exec) against member k; its exit code.
  int Readiness(int k) {
    const std::vector<std::string> cmd = patroni::ReadinessProbeCommand(ports_[2 * k], true);
    const std::string script = patroni_.root() + "/readiness.sh";
    std::ofstream(script) << cmd[2];
    int rc = 0;
    RunCapture(absl::StrCat("sh ", script, " ", cmd[4], " >/dev/null 2>&1"), &rc);
    return rc;
  }

  // Whether member `viewer` lists `member` as streaming within a minute.
  bool Streams(patroni::RestClient& rest, int viewer, int member) {
    return Eventually(
        [&] {
          absl::StatusOr<patroni::ClusterStatus> c = rest.GetCluster(Member(viewer));
          if (!c.ok()) return false;
          for (const patroni::ClusterMember& m : c->members) {
            if (m.name == Pod(member) && m.state == "streaming") return true;
          }
          return false;
        },
        absl::Seconds(60));
  }

  int Primary(patroni::RestClient& rest) {
    std::vector<patroni::Endpoint> members;
    for (int k = 0; k < kMembers; ++k) members.push_back(Member(k));
    return patroni::testing::RunningPrimary(rest, members);
  }

  std::vector<int> ports_;
  runtime::CertKeyPair ca_;
  runtime::CertKeyPair operator_client_;
  EtcdHarness etcd_harness_{{.max_members = 1, .tls = false, .name_prefix = "tls"}};
  PatroniHarness patroni_;
};

TEST_F(PostgresTlsTest, VerifyFullTlsOnlyReplicationOverTlsRotationAndRestApiAuth) {
  ASSERT_TRUE(etcd_harness_.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> root = etcd::Client::Create(etcd_harness_.Config());
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_TRUE(etcd_harness_.StartNewCluster(**root, 1).ok()) << etcd_harness_.LogTail(0);
  ASSERT_TRUE(patroni_.Init(kMembers).ok());
  ports_ = FreePorts(2 * kMembers);

  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA(CaCommonName(Cluster()), kClusterCaValidity, absl::Now());
  ASSERT_TRUE(ca.ok());
  ca_ = *ca;
  OperatorClientCerts client_certs;
  absl::StatusOr<runtime::CertKeyPair> op = client_certs.For(ns() + "/pg", ca_, absl::Now());
  ASSERT_TRUE(op.ok()) << op.status();
  operator_client_ = *op;
  // Issued for an hour: two thirds in, it is due (checked below).
  const runtime::CertKeyPair first = Issue(absl::Hours(1));
  WriteCert(first);

  const PostgresCluster cluster = Cluster();
  DcsResolution dcs;
  dcs.ready = true;
  const std::string etcd_host = etcd_harness_.ClientUrl(0).substr(std::string("http://").size());
  dcs.dcs = patroni::EtcdDcs{.hosts = {etcd_host}, .protocol = "http"};
  for (int k = 0; k < kMembers; ++k) {
    patroni::ConfigInput in = BuildPatroniInput(cluster, dcs);  // the operator's configuration
    // Local paths and ports instead of the pod's.
    in.key_namespace = "/quorum/" + ns() + "/";
    in.ttl = 20;
    in.loop_wait = 2;
    in.retry_timeout = 5;
    in.parameters["max_connections"] = "30";
    in.parameters["shared_buffers"] = "16MB";
    in.local_parameters = {{"unix_socket_directories", patroni_.MemberDir(k)}};
    in.listen_host = "127.0.0.1";
    in.restapi_port = ports_[2 * k];
    in.postgres_port = PgPort(k);
    in.data_dir = patroni_.DataDir(k);
    in.bin_dir = patroni_.binaries().pg_bin_dir;
    in.pgpass = patroni_.MemberDir(k) + "/pgpass";
    ASSERT_TRUE(in.tls.has_value());
    in.tls->cert_file = TlsDir() + "/tls.crt";
    in.tls->key_file = TlsDir() + "/tls.key";
    in.tls->ca_file = CaFile();
    ASSERT_TRUE(in.restapi_tls.has_value());
    in.restapi_tls->cert_file = TlsDir() + "/tls.crt";
    in.restapi_tls->key_file = TlsDir() + "/tls.key";
    in.restapi_tls->ca_file = CaFile();
    // The pods' DNS name (MemberDnsName) does not resolve on this host: the
    // members and patronictl call each other at localhost, which the
    // certificate names too.
    EXPECT_EQ(in.restapi_connect_host, MemberDnsName(cluster, "$(POD_NAME)"));
    in.restapi_connect_host = "localhost";
    ASSERT_TRUE(in.restapi_auth);
    patroni::testing::MemberEnv m;
    m.pod_name = Pod(k);
    m.pod_namespace = ns();
    m.superuser_password = kSuperuserPassword;
    m.replication_password = "repl-pass-tls";
    m.rewind_password = kSuperuserPassword;
    m.restapi_username = kRestAuth.username;
    m.restapi_password = kRestAuth.password;
    ASSERT_TRUE(patroni_.Start(k, patroni::RenderConfig(in), ResolveEnv(in, m)).ok());
  }

  patroni::RestClient rest({.timeout = absl::Seconds(3)});
  int primary = -1;
  ASSERT_TRUE(Eventually(
      [&] {
        primary = Primary(rest);
        if (primary < 0) return false;
        absl::StatusOr<patroni::ClusterStatus> c = rest.GetCluster(Member(primary));
        if (!c.ok() || c->members.size() != kMembers) return false;
        int streaming = 0;
        for (const patroni::ClusterMember& m : c->members) streaming += m.state == "streaming";
        return streaming == kMembers - 1;
      },
      absl::Seconds(150)))
      << Logs();
  const int replica = 1 - primary;

  // The REST API serves HTTPS. The operator's client connects to the
  // member's address and checks its pod DNS name and the cluster's CA.
  ASSERT_TRUE(rest.GetPatroni(Member(primary)).ok());
  EXPECT_EQ(Member(primary).tls_server_name, absl::StrCat(Pod(primary), ".pg-pods.", ns(), ".svc"));
  absl::StatusOr<runtime::CertKeyPair> other_ca =
      runtime::GenerateCA("another CA", absl::Hours(1), absl::Now());
  ASSERT_TRUE(other_ca.ok());
  patroni::Endpoint wrong_ca = Member(primary);
  wrong_ca.ca_pem = other_ca->cert_pem;
  absl::StatusOr<patroni::MemberStatus> distrusting = rest.GetPatroni(wrong_ca);
  EXPECT_TRUE(absl::IsUnavailable(distrusting.status())) << distrusting.status();
  patroni::Endpoint wrong_name = Member(primary);
  wrong_name.tls_server_name = absl::StrCat(Pod(primary), ".other-pods.", ns(), ".svc");
  distrusting = rest.GetPatroni(wrong_name);
  EXPECT_TRUE(absl::IsUnavailable(distrusting.status())) << distrusting.status();
  EXPECT_FALSE(
      rest.GetPatroni(patroni::Endpoint(absl::StrCat("http://127.0.0.1:", ports_[2 * primary])))
          .ok());
  // The members publish their https address (restapi.connect_address).
  absl::StatusOr<patroni::ClusterStatus> members = rest.GetCluster(Member(primary));
  ASSERT_TRUE(members.ok()) << members.status();
  for (const patroni::ClusterMember& m : members->members) {
    EXPECT_TRUE(m.api_url.starts_with("https://localhost:")) << m.api_url;
  }
  // The pods' readiness probe (exec, curl over HTTPS on loopback).
  EXPECT_TRUE(Eventually([&] { return Readiness(primary) == 0 && Readiness(replica) == 0; },
                         absl::Seconds(30)));

  // verify-full under the primary Service's name, with the CA: TLS.
  absl::StatusOr<std::string> ssl =
      Psql(primary, "verify-full", "select ssl from pg_stat_ssl where pid = pg_backend_pid()");
  ASSERT_TRUE(ssl.ok()) << ssl.status() << Logs();
  EXPECT_EQ(*ssl, "t");
  // Without TLS: refused by pg_hba (no host rule).
  absl::StatusOr<std::string> plain = Psql(primary, "disable", "select 1");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("no encryption"), std::string::npos) << plain.status();
  // The operator's SQL for spec.users (EnsureUsers): verify-full against the
  // primary's pod DNS name at its address, the CA handed to libpq in memory;
  // another CA or another name is refused.
  const PostgresTarget sql_target{.host = MemberDnsName(cluster, Pod(primary)),
                                  .hostaddr = "127.0.0.1",
                                  .port = PgPort(primary),
                                  .user = "postgres",
                                  .password = kSuperuserPassword,
                                  .ca_pem = ca_.cert_pem};
  const std::vector<UserSpec> app = {{.name = "app", .databases = {"app"}, .password = "app-pw"}};
  absl::Status made = EnsureUsers(sql_target, app);
  EXPECT_TRUE(made.ok()) << made;
  absl::StatusOr<std::string> app_ssl =
      Psql(primary, "verify-full", "select count(*) from pg_roles where rolname = 'app'");
  ASSERT_TRUE(app_ssl.ok()) << app_ssl.status();
  EXPECT_EQ(*app_ssl, "1");
  // spec.authentication.rules: app reaches its own database, and the user's
  // reject rule keeps it out of postgres (the superuser, whose rule comes
  // first, is not affected).
  absl::StatusOr<std::string> own_db =
      PsqlAs(primary, "app", "app-pw", "app", "verify-full", "select 1");
  EXPECT_TRUE(own_db.ok()) << own_db.status();
  absl::StatusOr<std::string> rejected =
      PsqlAs(primary, "app", "app-pw", "postgres", "verify-full", "select 1");
  ASSERT_FALSE(rejected.ok());
  EXPECT_TRUE(absl::StrContains(rejected.status().message(), "pg_hba.conf rejects connection"))
      << rejected.status();
  PostgresTarget other_ca_target = sql_target;
  absl::StatusOr<runtime::CertKeyPair> sql_other_ca =
      runtime::GenerateCA("not ours", absl::Hours(1), absl::Now());
  ASSERT_TRUE(sql_other_ca.ok());
  other_ca_target.ca_pem = sql_other_ca->cert_pem;
  absl::Status distrusted_sql = EnsureUsers(other_ca_target, app);
  EXPECT_TRUE(absl::IsUnavailable(distrusted_sql)) << distrusted_sql;
  PostgresTarget other_name_target = sql_target;
  other_name_target.host = "pg-0.other-pods." + ns() + ".svc";
  distrusted_sql = EnsureUsers(other_name_target, app);
  EXPECT_TRUE(absl::IsUnavailable(distrusted_sql)) << distrusted_sql;
  std::printf("spec.users SQL with another name: %s\n", distrusted_sql.ToString().c_str());

  // Replication over TLS: the replica's walsender connection.
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<std::string> n = Psql(primary, "verify-full",
                                             "select count(*) filter (where s.ssl) || '/' || "
                                             "count(*) from pg_stat_replication r join "
                                             "pg_stat_ssl s using (pid)");
        return n.ok() && *n == "1/1";
      },
      absl::Seconds(30)))
      << Logs();

  // Rotation: the stored certificate is due two thirds into its hour; a new
  // one replaces the files (the kubelet's part), the members reload (the
  // operator's POST /reload), and the new one is served without a restart.
  const std::string old_serial = ServedSerial(primary);
  ASSERT_FALSE(old_serial.empty());
  EXPECT_EQ(ServerCertRenewalReason(first.cert_pem, first.key_pem, ca_.cert_pem,
                                    ServerCertDnsNames(cluster), absl::Now()),
            "");
  EXPECT_NE(ServerCertRenewalReason(first.cert_pem, first.key_pem, ca_.cert_pem,
                                    ServerCertDnsNames(cluster), absl::Now() + absl::Minutes(41)),
            "");
  const pid_t postmaster = patroni_.PostmasterPid(primary);
  const std::string old_rest_serial = RestSerial(primary);
  ASSERT_EQ(old_rest_serial, old_serial);  // one certificate for both
  WriteCert(Issue(kServerCertValidity));
  for (int k = 0; k < kMembers; ++k) {
    EXPECT_TRUE(rest.Reload(Member(k), kRestAuth).ok());
  }
  EXPECT_TRUE(Eventually([&] { return ServedSerial(primary) != old_serial; }, absl::Seconds(30)))
      << Logs();
  EXPECT_EQ(patroni_.PostmasterPid(primary), postmaster);  // reloaded, not restarted
  // The REST API serves the new certificate too (Patroni reloads its TLS
  // context on SIGHUP when the file's serial changed), and still verifies.
  EXPECT_TRUE(
      Eventually([&] { return RestSerial(primary) == ServedSerial(primary); }, absl::Seconds(30)))
      << Logs();
  EXPECT_NE(RestSerial(primary), old_rest_serial);
  // The replica reloads on its own schedule (its HA loop), and a request in
  // flight while its REST API swaps the TLS context fails: the switchover
  // below would then be refused (503, the leader could not ask the
  // candidate). Wait until it serves the new certificate too.
  EXPECT_TRUE(
      Eventually([&] { return RestSerial(replica) == RestSerial(primary); }, absl::Seconds(30)))
      << Logs();
  EXPECT_TRUE(rest.GetPatroni(Member(primary)).ok());
  absl::StatusOr<std::string> after = Psql(primary, "verify-full", "select 1");
  EXPECT_TRUE(after.ok()) << after.status();
  absl::StatusOr<std::string> still_streaming =
      Psql(primary, "verify-full", "select count(*) from pg_stat_replication");
  ASSERT_TRUE(still_streaming.ok());
  EXPECT_EQ(*still_streaming, "1");

  // The REST API: unsafe calls need the Secret's credentials.
  absl::Status anonymous = rest.Switchover(Member(primary), Pod(primary), Pod(replica));
  EXPECT_TRUE(absl::IsUnauthenticated(anonymous)) << anonymous;
  EXPECT_TRUE(absl::IsUnauthenticated(
      rest.Switchover(Member(primary), Pod(primary), Pod(replica), {"quorum", "wrong"})));
  EXPECT_TRUE(absl::IsUnauthenticated(rest.Reload(Member(primary))));
  // ... and a client certificate from the cluster's CA (issue 34): the right
  // credentials without one, or with one from another CA, are refused.
  patroni::Endpoint no_cert = Member(primary);
  no_cert.client_cert_pem.clear();
  no_cert.client_key_pem.clear();
  absl::Status certless = rest.Reload(no_cert, kRestAuth);
  EXPECT_FALSE(certless.ok()) << "an unsafe call without a client certificate was accepted";
  std::printf("reload with credentials but no client certificate: %s\n",
              certless.ToString().c_str());
  absl::StatusOr<runtime::CertKeyPair> stranger_ca =
      runtime::GenerateCA("stranger", absl::Hours(1), absl::Now());
  ASSERT_TRUE(stranger_ca.ok());
  absl::StatusOr<runtime::CertKeyPair> stranger =
      runtime::GenerateClientCert(*stranger_ca, "stranger", absl::Hours(1), absl::Now());
  ASSERT_TRUE(stranger.ok());
  patroni::Endpoint foreign = Member(primary);
  foreign.client_cert_pem = stranger->cert_pem;
  foreign.client_key_pem = stranger->key_pem;
  EXPECT_FALSE(rest.Reload(foreign, kRestAuth).ok())
      << "a client certificate from another CA was accepted";
  EXPECT_TRUE(rest.Reload(Member(primary), kRestAuth).ok());
  EXPECT_TRUE(rest.GetPatroni(no_cert).ok()) << "GET (probes, role reads) needs no certificate";
  EXPECT_EQ(Primary(rest), primary);
  // GET stays open (probes, the operator's role reads).
  EXPECT_TRUE(rest.GetPatroni(Member(primary)).ok());
  // Patroni takes a candidate that streams (412 "no good candidates"
  // otherwise): the reloads above may have restarted the replica's stream.
  ASSERT_TRUE(Streams(rest, primary, replica)) << Logs();
  // The leader also asks the candidate over verified HTTPS: a transient 412
  // is retried, a lasting one fails the test.
  absl::Status s;
  Eventually(
      [&] {
        s = rest.Switchover(Member(primary), Pod(primary), Pod(replica), kRestAuth);
        return !absl::IsFailedPrecondition(s);
      },
      absl::Seconds(60));
  ASSERT_TRUE(s.ok()) << s << Logs();
  EXPECT_TRUE(Eventually([&] { return Primary(rest) == replica; }, absl::Seconds(60))) << Logs();
  absl::StatusOr<std::string> new_primary_ssl =
      Psql(replica, "verify-full", "select ssl from pg_stat_ssl where pid = pg_backend_pid()");
  ASSERT_TRUE(new_primary_ssl.ok()) << new_primary_ssl.status();
  EXPECT_EQ(*new_primary_ssl, "t");

  // The members check each other's certificate (the leader asks the
  // candidate's /patroni before it hands over): with a CA file that does not
  // sign the members' certificate, a switchover finds no healthy candidate.
  // (PostgreSQL keeps the CA it loaded; streaming replication stays up.)
  ASSERT_TRUE(Streams(rest, replica, primary)) << Logs();
  std::ofstream(CaFile()) << other_ca->cert_pem;
  absl::Status distrusted = rest.Switchover(Member(replica), Pod(replica), Pod(primary), kRestAuth);
  EXPECT_FALSE(distrusted.ok()) << Logs();
  std::printf("switchover while a member distrusts its peer: %s\n", distrusted.ToString().c_str());
  EXPECT_EQ(Primary(rest), replica);
  std::ofstream(CaFile()) << ca_.cert_pem;

  // patronictl in a pod has the same configuration file and environment:
  // without the credentials its switchover is refused, with them it works.
  ASSERT_TRUE(Streams(rest, replica, primary)) << Logs();
  const std::string ctl =
      absl::StrCat(patroni_.binaries().patroni_bin_dir, "/patronictl -c ",
                   patroni_.MemberDir(replica), "/patroni.yml switchover --leader ", Pod(replica),
                   " --candidate ", Pod(primary), " --force 2>&1");
  int rc = 0;
  const std::string refused = RunCapture(ctl, &rc);
  EXPECT_TRUE(rc != 0 || refused.find("401") != std::string::npos) << refused;
  EXPECT_EQ(Primary(rest), replica);
  const std::string done =
      RunCapture(absl::StrCat("PATRONI_RESTAPI_USERNAME=", kRestAuth.username,
                              " PATRONI_RESTAPI_PASSWORD=", kRestAuth.password, " ", ctl),
                 &rc);
  EXPECT_EQ(rc, 0) << done;
  EXPECT_TRUE(Eventually([&] { return Primary(rest) == primary; }, absl::Seconds(60))) << Logs();

  // Failover: the leader dies; the replica (which asks its peers over
  // verified HTTPS in the leader race) takes over once the leader key expires.
  ASSERT_TRUE(Streams(rest, primary, replica)) << Logs();
  patroni_.Kill(primary);
  EXPECT_TRUE(Eventually([&] { return Primary(rest) == replica; }, absl::Seconds(90))) << Logs();
  absl::StatusOr<std::string> promoted = Psql(replica, "verify-full", "select pg_is_in_recovery()");
  ASSERT_TRUE(promoted.ok()) << promoted.status();
  EXPECT_EQ(*promoted, "f");
}

}  // namespace
}  // namespace quorum::postgrescluster
