// Table tests for the PostgreSQL TLS builders (src/controllers/postgrescluster/tls.h):
// the certificate's names, the renewal decision, the Secrets, and pg_hba.
#include "src/controllers/postgrescluster/tls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/escaping.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/observe.h"
#include "src/controllers/postgrescluster/users.h"
#include "src/runtime/certs.h"
#include "src/runtime/transforms.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Cluster(const std::string& dcs_type, Json tls = nullptr) {
  Json c = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", "hippo"}, {"namespace", "db"}, {"uid", "u1"}}},
            {"spec",
             {{"postgresVersion", 17},
              {"instances",
               {{{"name", "main"},
                 {"replicas", 2},
                 {"dataVolumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
              {"patroni", {{"dcs", {{"type", dcs_type}}}}}}}};
  if (dcs_type == "etcd") {
    c["spec"]["patroni"]["dcs"]["etcd"] = {{"endpoints", {"http://etcd:2379"}}};
  }
  if (!tls.is_null()) c["spec"]["tls"] = tls;
  absl::StatusOr<PostgresCluster> parsed = api::ParsePostgresCluster(c);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : PostgresCluster{};
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ServerCertDnsNamesTest, NamesEveryServiceAndEveryPodThroughTheHeadlessService) {
  const std::vector<std::string> names = ServerCertDnsNames(Cluster("kubernetes"));
  for (const char* want :
       {"hippo", "hippo.db", "hippo.db.svc", "hippo.db.svc.cluster.local", "hippo-replicas",
        "hippo-replicas.db.svc", "hippo-replicas.db.svc.cluster.local", "hippo-pods.db.svc",
        "*.hippo-pods.db.svc", "*.hippo-pods.db.svc.cluster.local", "hippo-config.db.svc",
        "localhost"}) {
    EXPECT_TRUE(Has(names, want)) << want;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(ServerCertDnsNamesTest, TheEtcdDcsHasNoConfigService) {
  const std::vector<std::string> names = ServerCertDnsNames(Cluster("etcd"));
  EXPECT_FALSE(Has(names, "hippo-config.db.svc"));
  EXPECT_TRUE(Has(names, "hippo.db.svc"));
}

TEST(CommonNameTest, FitsX509sLimitWhateverTheNames) {
  const PostgresCluster c = Cluster("etcd");
  EXPECT_EQ(ServerCertCommonName(c), "hippo");
  EXPECT_EQ(CaCommonName(c), "quorum-postgres-ca hippo");
  PostgresCluster long_name = c;
  long_name.metadata.name = std::string(50, 'a');
  long_name.metadata.ns = std::string(63, 'b');
  EXPECT_LE(CaCommonName(long_name).size(), 64u);
  EXPECT_LE(ServerCertCommonName(long_name).size(), 64u);
  // The signer takes them (a Service name with its namespace would not fit).
  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA(CaCommonName(long_name), absl::Hours(1), absl::Now());
  ASSERT_TRUE(ca.ok()) << ca.status();
  EXPECT_TRUE(runtime::GenerateServingCert(*ca, ServerCertCommonName(long_name),
                                           ServerCertDnsNames(long_name), {"127.0.0.1"},
                                           absl::Hours(1), absl::Now())
                  .ok());
}

class RenewalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<runtime::CertKeyPair> ca =
        runtime::GenerateCA("ca", absl::Hours(24 * 365), absl::Now());
    ASSERT_TRUE(ca.ok()) << ca.status();
    ca_ = *ca;
    absl::StatusOr<runtime::CertKeyPair> other =
        runtime::GenerateCA("other", absl::Hours(240), absl::Now());
    ASSERT_TRUE(other.ok());
    other_ca_ = *other;
    names_ = ServerCertDnsNames(Cluster("etcd"));
  }
  runtime::CertKeyPair Issue(const runtime::CertKeyPair& ca, std::vector<std::string> names,
                             absl::Duration validity) {
    absl::StatusOr<runtime::CertKeyPair> c = runtime::GenerateServingCert(
        ca, "hippo.db.svc", std::move(names), {}, validity, absl::Now());
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : runtime::CertKeyPair{};
  }
  runtime::CertKeyPair ca_, other_ca_;
  std::vector<std::string> names_;
};

TEST_F(RenewalTest, DecidesFromTheStoredCertificate) {
  const absl::Time now = absl::Now();
  const runtime::CertKeyPair good = Issue(ca_, names_, kServerCertValidity);
  const runtime::CertKeyPair foreign = Issue(other_ca_, names_, kServerCertValidity);
  std::vector<std::string> fewer(names_.begin() + 1, names_.end());
  const runtime::CertKeyPair old_names = Issue(ca_, fewer, kServerCertValidity);
  struct Case {
    const char* name;
    std::string cert, key;
    absl::Time at;
    bool renew;
  } cases[] = {
      {"fresh", good.cert_pem, good.key_pem, now, false},
      {"missing", "", "", now, true},
      {"garbage", "not a certificate", good.key_pem, now, true},
      {"key of another certificate", good.cert_pem, foreign.key_pem, now, true},
      {"another CA", foreign.cert_pem, foreign.key_pem, now, true},
      {"names changed", old_names.cert_pem, old_names.key_pem, now, true},
      // Renewed when less than a third of its 90 days is left (60 days in).
      {"59 days in", good.cert_pem, good.key_pem, now + absl::Hours(24 * 59), false},
      {"61 days in", good.cert_pem, good.key_pem, now + absl::Hours(24 * 61), true},
      {"expired", good.cert_pem, good.key_pem, now + absl::Hours(24 * 91), true},
  };
  for (const Case& c : cases) {
    const std::string reason = ServerCertRenewalReason(c.cert, c.key, ca_.cert_pem, names_, c.at);
    EXPECT_EQ(!reason.empty(), c.renew) << c.name << ": " << reason;
  }
}

TEST_F(RenewalTest, TheMemoAnswersAsTheChecksWould) {
  const absl::Time now = absl::Now();
  const runtime::CertKeyPair good = Issue(ca_, names_, kServerCertValidity);
  const runtime::CertKeyPair foreign = Issue(other_ca_, names_, kServerCertValidity);
  std::vector<std::string> fewer(names_.begin() + 1, names_.end());
  absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(good.cert_pem);
  ASSERT_TRUE(info.ok()) << info.status();
  const absl::Time due = RenewalTime(info->not_before, info->not_after);
  // One memo through all the rows, in order: each answer must be what the
  // checks say for that row, whatever the rows before left in the memo.
  struct Case {
    const char* name;
    std::string cert, key, ca;
    std::vector<std::string> names;
    absl::Time at;
  } cases[] = {
      {"fresh", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now},
      {"fresh again (remembered)", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now},
      {"59 days in (remembered)", good.cert_pem, good.key_pem, ca_.cert_pem, names_,
       now + absl::Hours(24 * 59)},
      {"key of another certificate", good.cert_pem, foreign.key_pem, ca_.cert_pem, names_, now},
      {"fresh after a bad key", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now},
      {"another CA", good.cert_pem, good.key_pem, other_ca_.cert_pem, names_, now},
      {"names changed", good.cert_pem, good.key_pem, ca_.cert_pem, fewer, now},
      {"fresh once more", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now},
      {"61 days in", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now + absl::Hours(24 * 61)},
      {"expired", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now + absl::Hours(24 * 91)},
      {"garbage", "not a certificate", good.key_pem, ca_.cert_pem, names_, now},
      {"missing", "", "", ca_.cert_pem, names_, now},
  };
  ServerCertMemo memo;
  for (const Case& c : cases) {
    const std::string want = ServerCertRenewalReason(c.cert, c.key, c.ca, c.names, c.at);
    std::optional<absl::Time> renew_at;
    EXPECT_EQ(memo.RenewalReason("db/hippo", c.cert, c.key, c.ca, c.names, c.at, renew_at), want)
        << c.name;
    if (want.empty()) {
      EXPECT_EQ(renew_at, due) << c.name;
      EXPECT_EQ(memo.size(), 1u) << c.name;
    } else {
      EXPECT_EQ(memo.size(), 0u) << c.name << ": a bad certificate is not remembered";
    }
  }
  std::optional<absl::Time> renew_at;
  EXPECT_EQ(memo.RenewalReason("db/hippo", good.cert_pem, good.key_pem, ca_.cert_pem, names_, now,
                               renew_at),
            "");
  memo.Forget("db/hippo");
  EXPECT_EQ(memo.size(), 0u);
}

TEST(RenewalTimeTest, TwoThirdsOfTheLifetime) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  EXPECT_EQ(RenewalTime(t0, t0 + absl::Hours(90)), t0 + absl::Hours(60));
}

std::string Decoded(const Json& secret, const char* key) {
  std::string out;
  absl::Base64Unescape(secret["data"][key].get<std::string>(), &out);
  return out;
}

TEST(TlsSecretsTest, OwnedSecretsCarryTheirFilesAndTheOwner) {
  const PostgresCluster c = Cluster("etcd");
  const Json ca = BuildCaSecret(c, "CA", "CAKEY");
  EXPECT_EQ(ca["metadata"]["name"], "hippo-ca");
  EXPECT_EQ(Decoded(ca, "ca.key"), "CAKEY");
  EXPECT_EQ(ca["metadata"]["ownerReferences"][0]["uid"], "u1");
  const Json tls = BuildServerTlsSecret(c, "CA", "CERT", "KEY");
  EXPECT_EQ(tls["metadata"]["name"], "hippo-tls");
  EXPECT_EQ(tls["type"], "kubernetes.io/tls");
  EXPECT_EQ(Decoded(tls, "ca.crt"), "CA");
  EXPECT_EQ(Decoded(tls, "tls.crt"), "CERT");
  EXPECT_EQ(Decoded(tls, "tls.key"), "KEY");
  EXPECT_EQ(tls["metadata"]["ownerReferences"][0]["uid"], "u1");
}

TEST(TlsSecretsTest, TheMembersMountTheCustomSecretWhenGiven) {
  EXPECT_EQ(MountedTlsSecret(Cluster("etcd")), "hippo-tls");
  EXPECT_EQ(MountedTlsSecret(Cluster("etcd", {{"customSecret", "mine"}})), "mine");
}

TEST(ConnectionSecretTest, VerifyFullAndTheCa) {
  const Json s = BuildCredentialSecret(Cluster("etcd"), "hippo-superuser", "postgres", "pw",
                                       "postgres", "CA-PEM");
  EXPECT_EQ(Decoded(s, "sslmode"), "verify-full");
  EXPECT_EQ(Decoded(s, "ca.crt"), "CA-PEM");
  EXPECT_EQ(Decoded(s, "uri"),
            "postgresql://postgres:pw@hippo.db.svc:5432/postgres?sslmode=verify-full");
  EXPECT_EQ(Decoded(s, "host"), "hippo.db.svc");
}

TEST(ConnectionSecretTest, AUserWithoutDatabasesConnectsToPostgres) {
  PostgresCluster c = Cluster("etcd");
  c.spec.users = {{.name = "report"}, {.name = "app", .databases = {"app", "other"}}};
  std::map<std::string, std::string> dbname;
  for (const CredentialSpec& spec : CredentialSecrets(c)) dbname[spec.username] = spec.dbname;
  EXPECT_EQ(dbname["report"], "postgres");  // libpq's default, "report", does not exist
  EXPECT_EQ(dbname["app"], "app");
  EXPECT_EQ(dbname["postgres"], "postgres");
  EXPECT_EQ(dbname["replicator"], "");
}

TEST(PgHbaTest, OnlyTlsUnlessPlaintextIsAllowed) {
  const std::vector<std::string> own = {
      "local all postgres,replicator scram-sha-256",
      "hostssl replication replicator all scram-sha-256",
      "hostssl all postgres,replicator all scram-sha-256",
      "hostssl postgres quorum_monitor 127.0.0.1/32 scram-sha-256",
      "host all quorum_monitor all reject",
      "local all quorum_monitor reject"};
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> out = own;
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
  };
  struct Case {
    Json tls;
    std::vector<std::string> want;
  } cases[] = {
      {nullptr, with({"local all all scram-sha-256", "hostssl all all all scram-sha-256"})},
      {{{"allowPlaintext", true}},
       with({"local all all scram-sha-256", "hostssl all all all scram-sha-256",
             "host all all all scram-sha-256"})},
  };
  for (const Case& c : cases) EXPECT_EQ(PgHba(Cluster("etcd", c.tls)), c.want) << c.tls.dump();
}

// spec.authentication.rules go after Quorum's roles' rules, before the
// catch-alls, in order, each token as written.
TEST(PgHbaTest, TheUsersRulesComeBetweenQuorumsAndTheCatchAlls) {
  PostgresCluster c = Cluster("etcd");
  api::PostgresHbaRule app;
  app.databases = {"app"};
  app.users = {"app", "+readers"};
  app.address = "10.0.0.0/8";
  app.method = "scram-sha-256";
  app.options = {{"clientcert", "verify-ca"}};
  api::PostgresHbaRule reject;
  reject.method = "reject";
  api::PostgresHbaRule local;
  local.connection = "local";
  local.users = {"ops"};
  local.method = "peer";
  c.spec.authentication.rules = {app, reject, local};
  c.spec.monitoring.exporter.enabled = false;  // its lines: monitoring_test.cc
  const std::vector<std::string> hba = PgHba(c);
  ASSERT_EQ(hba.size(), 8u);
  EXPECT_EQ(hba[2], "hostssl all postgres,replicator all scram-sha-256");
  EXPECT_EQ(hba[3], "hostssl app app,+readers 10.0.0.0/8 scram-sha-256 clientcert=verify-ca");
  EXPECT_EQ(hba[4], "hostssl all all all reject");
  EXPECT_EQ(hba[5], "local all ops peer");
  EXPECT_EQ(hba[6], "local all all scram-sha-256");
  EXPECT_EQ(hba[7], "hostssl all all all scram-sha-256");
}

// The REST API serves the members' certificate; the members call each other
// (and patronictl calls them) by pod DNS name; the kubelet probes over HTTPS.
TEST(RestApiTlsTest, TheMembersServeHttpsAndCallEachOtherByPodDnsName) {
  const PostgresCluster cluster = Cluster("etcd");
  DcsResolution dcs;
  dcs.ready = true;
  dcs.dcs = patroni::EtcdDcs{.hosts = {"etcd:2379"}};
  const patroni::ConfigInput in = BuildPatroniInput(cluster, dcs);
  ASSERT_TRUE(in.restapi_tls.has_value());
  EXPECT_EQ(in.restapi_tls->cert_file, "/etc/patroni/tls/tls.crt");
  EXPECT_EQ(in.restapi_tls->key_file, "/etc/patroni/tls/tls.key");
  EXPECT_EQ(in.restapi_tls->ca_file, "/etc/patroni/tls/ca.crt");
  EXPECT_EQ(in.restapi_connect_host, "$(POD_NAME).hippo-pods.db.svc");
  const Json sts = BuildStatefulSet(cluster, cluster.spec.instances[0], in, dcs);
  const Json& c = sts["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["scheme"], "HTTPS");
  // The operator learns the scheme from a label, which its pod cache keeps.
  Json pod = {{"metadata", sts["spec"]["template"]["metadata"]},
              {"spec", sts["spec"]["template"]["spec"]},
              {"status", {{"podIP", "10.0.0.7"}}}};
  runtime::StripPod(pod);
  EXPECT_EQ(DefaultMemberUrl(pod), "https://10.0.0.7:8008");
  bool connect_address = false;
  for (const Json& e : c["env"]) {
    if (e["name"] == "PATRONI_RESTAPI_CONNECT_ADDRESS") {
      EXPECT_EQ(e["value"], "$(POD_NAME).hippo-pods.db.svc:8008");
      connect_address = true;
    }
  }
  EXPECT_TRUE(connect_address);
  // The name is one the certificate's wildcard covers.
  EXPECT_TRUE(Has(ServerCertDnsNames(cluster), "*.hippo-pods.db.svc"));
  EXPECT_EQ(MemberDnsName(cluster, "hippo-main-0"), "hippo-main-0.hippo-pods.db.svc");
}

// A member pod as the operator's cache holds it (runtime::StripPod: labels,
// no spec but the node).
Json MemberPod(const std::string& ip, const char* scheme) {
  Json pod = {{"metadata", {{"name", "hippo-main-0"}, {"labels", Json::object()}}},
              {"status", {{"podIP", ip}}}};
  if (scheme != nullptr) pod["metadata"]["labels"][kRestSchemeLabel] = scheme;
  return pod;
}

// The operator connects to the pod IP and checks the pod's DNS name in the
// certificate against the cluster's CA; a pod made before REST TLS (its probe
// still HTTP) is asked over HTTP until it is rolled.
TEST(MemberEndpointTest, PodIpConnectedPodDnsNameVerified) {
  EXPECT_EQ(DefaultMemberUrl(MemberPod("10.0.0.7", "https")), "https://10.0.0.7:8008");
  EXPECT_EQ(DefaultMemberUrl(MemberPod("10.0.0.7", "http")), "http://10.0.0.7:8008");
  EXPECT_EQ(DefaultMemberUrl(MemberPod("10.0.0.7", nullptr)), "http://10.0.0.7:8008");
  EXPECT_EQ(DefaultMemberUrl(MemberPod("fd00::7", "https")), "https://[fd00::7]:8008");
  EXPECT_EQ(DefaultMemberUrl(MemberPod("", "https")), "");

  const PostgresCluster cluster = Cluster("etcd");
  const patroni::Endpoint https =
      MemberEndpoint(cluster, "hippo-main-0", "https://10.0.0.7:8008", "CA");
  EXPECT_EQ(https.url, "https://10.0.0.7:8008");
  EXPECT_EQ(https.tls_server_name, "hippo-main-0.hippo-pods.db.svc");
  EXPECT_EQ(https.ca_pem, "CA");
  const patroni::Endpoint http =
      MemberEndpoint(cluster, "hippo-main-0", "http://10.0.0.7:8008", "CA");
  EXPECT_EQ(http, patroni::Endpoint("http://10.0.0.7:8008"));
}

Json Data(const std::map<std::string, std::string>& plain) {
  Json out = Json::object();
  for (const auto& [k, v] : plain) out[k] = absl::Base64Escape(v);
  return out;
}

// Connection Secrets made before TLS get ca.crt and sslmode; the password
// and what is already right stay.
TEST(UpgradedCredentialDataTest, FillsInTheCaAndSslmodeKeepingThePassword) {
  const Json old = Data({{"username", "app"},
                         {"password", "pw"},
                         {"host", "hippo.db.svc"},
                         {"port", "5432"},
                         {"dbname", "app"},
                         {"uri", "postgresql://app:pw@hippo.db.svc:5432/app"}});
  std::optional<Json> up = UpgradedCredentialData(old, "app", "CA-PEM");
  ASSERT_TRUE(up.has_value());
  const Json s = {{"data", *up}};
  EXPECT_EQ(Decoded(s, "password"), "pw");
  EXPECT_EQ(Decoded(s, "username"), "app");
  EXPECT_EQ(Decoded(s, "ca.crt"), "CA-PEM");
  EXPECT_EQ(Decoded(s, "sslmode"), "verify-full");
  EXPECT_EQ(Decoded(s, "uri"), "postgresql://app:pw@hippo.db.svc:5432/app?sslmode=verify-full");
  // Done once: nothing more to add.
  EXPECT_FALSE(UpgradedCredentialData(*up, "app", "CA-PEM").has_value());
  // What BuildCredentialSecret writes today needs nothing.
  const Json fresh =
      BuildCredentialSecret(Cluster("etcd"), "hippo-user-app", "app", "pw", "app", "CA-PEM");
  EXPECT_FALSE(UpgradedCredentialData(fresh["data"], "app", "CA-PEM").has_value());
  // A uri with a query gets &sslmode; one that has an sslmode keeps it.
  std::optional<Json> q = UpgradedCredentialData(
      Data({{"uri", "postgresql://a:b@h/d?connect_timeout=3"}, {"sslmode", "require"}}), "app", "");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(Decoded({{"data", *q}}, "uri"),
            "postgresql://a:b@h/d?connect_timeout=3&sslmode=verify-full");
  EXPECT_EQ(Decoded({{"data", *q}}, "sslmode"), "require");
  EXPECT_FALSE(q->contains("ca.crt"));
  // A new CA replaces the old one.
  std::optional<Json> rotated = UpgradedCredentialData(*up, "app", "NEW-CA");
  ASSERT_TRUE(rotated.has_value());
  EXPECT_EQ(Decoded({{"data", *rotated}}, "ca.crt"), "NEW-CA");
  // The replication Secret gets the CA only (nobody connects with it).
  std::optional<Json> repl = UpgradedCredentialData(
      Data({{"username", "replicator"}, {"password", "r"}}), "replicator", "CA-PEM");
  ASSERT_TRUE(repl.has_value());
  EXPECT_FALSE(repl->contains("sslmode"));
  EXPECT_EQ(Decoded({{"data", *repl}}, "ca.crt"), "CA-PEM");
  EXPECT_EQ(Decoded({{"data", *repl}}, "password"), "r");
}

// The operator's SQL connection: verify-full against the pod's DNS name while
// connecting to the pod IP, with the CA; the password is not among these.
TEST(ConnParamsTest, VerifyFullByPodDnsNameAtThePodIp) {
  const PostgresTarget t{.host = "hippo-main-0.hippo-pods.db.svc",
                         .hostaddr = "10.0.0.7",
                         .port = 5432,
                         .user = "postgres",
                         .password = "secret",
                         .ca_pem = "CA"};
  const std::vector<std::pair<std::string, std::string>> p = ConnParams(t, "/proc/self/fd/9");
  const std::map<std::string, std::string> m(p.begin(), p.end());
  EXPECT_EQ(m.at("host"), "hippo-main-0.hippo-pods.db.svc");
  EXPECT_EQ(m.at("hostaddr"), "10.0.0.7");
  EXPECT_EQ(m.at("sslmode"), "verify-full");
  EXPECT_EQ(m.at("sslrootcert"), "/proc/self/fd/9");
  EXPECT_FALSE(m.contains("password"));
  PostgresTarget plain{.host = "127.0.0.1", .port = 5432, .user = "postgres"};
  const std::vector<std::pair<std::string, std::string>> q = ConnParams(plain, "");
  const std::map<std::string, std::string> n(q.begin(), q.end());
  EXPECT_EQ(n.at("sslmode"), "prefer");
  EXPECT_FALSE(n.contains("hostaddr"));
  EXPECT_FALSE(n.contains("sslrootcert"));
}

}  // namespace
}  // namespace quorum::postgrescluster
