// Golden tests of the Patroni configuration: the rendered YAML must match
// test/unit/patroni/testdata/<name>.yaml byte for byte. To accept a deliberate
// change, run the test with QUORUM_UPDATE_GOLDEN=1 and review the diff.
#include "src/patroni/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "test/testmain/paths.h"

namespace quorum::patroni {
namespace {

std::string GoldenPath(const std::string& name) {
  return std::string(QUORUM_SOURCE_DIR) + "/test/unit/patroni/testdata/" + name + ".yaml";
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = GoldenPath(name);
  if (std::getenv("QUORUM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file " << path << " differs";
}

// A cluster "hippo" in namespace "db", as the controller would describe it.
ConfigInput Base() {
  ConfigInput in;
  in.scope = "hippo";
  in.key_namespace = "/quorum/db/";
  in.dynamic_configuration = {
      {"postgresql", {{"parameters", {{"max_connections", "200"}}}}},
      {"synchronous_mode", true},
  };
  in.parameters = {{"max_connections", "100"}, {"wal_level", "replica"}, {"hot_standby", "on"}};
  in.pg_hba = {"local all all trust", "host replication replicator 0.0.0.0/0 scram-sha-256",
               "host all all 0.0.0.0/0 scram-sha-256"};
  in.data_dir = "/pgdata/pg17";
  in.bin_dir = "/usr/lib/postgresql/17/bin";
  in.callback_script = "/etc/quorum/role-callback.sh";
  in.tags = {{"nofailover", false}};
  return in;
}

TEST(ConfigTest, KubernetesDcsMatchesGolden) {
  ConfigInput in = Base();
  KubernetesDcs k;
  k.namespace_ = "db";
  k.labels = {{"postgres.quorum.dev/cluster", "hippo"}};
  k.scope_label = "postgres.quorum.dev/cluster";
  in.dcs = k;
  ExpectGolden("kubernetes", RenderConfig(in));
}

// Issue 36.5: on ConfigMaps Patroni publishes no address, so no ports; with
// Endpoints the port is named like the primary Service's.
TEST(ConfigTest, KubernetesDcsOnConfigMapsOrEndpoints) {
  ConfigInput in = Base();
  KubernetesDcs k;
  k.use_endpoints = false;
  in.dcs = k;
  nlohmann::json cms = BuildConfig(in)["kubernetes"];
  EXPECT_EQ(cms["use_endpoints"], false);
  EXPECT_FALSE(cms.contains("ports"));
  EXPECT_NE(RenderConfig(in).find("\n  use_endpoints: false\n"), std::string::npos)
      << "the line dcs_objects.cc reads back";

  k.use_endpoints = true;
  k.port_name = "postgres";
  in.dcs = k;
  nlohmann::json eps = BuildConfig(in)["kubernetes"];
  EXPECT_EQ(eps["use_endpoints"], true);
  EXPECT_EQ(eps["ports"], nlohmann::json::parse(R"([{"name":"postgres","port":5432}])"));
}

TEST(ConfigTest, EtcdDcsWithTlsAndAuthMatchesGolden) {
  ConfigInput in = Base();
  EtcdDcs e;
  e.hosts = {"dcs-0.dcs.db.svc:2379", "dcs-1.dcs.db.svc:2379", "dcs-2.dcs.db.svc:2379"};
  e.protocol = "https";
  e.cacert = "/etc/quorum/etcd-tls/ca.crt";
  e.cert = "/etc/quorum/etcd-tls/tls.crt";
  e.key = "/etc/quorum/etcd-tls/tls.key";
  e.auth = true;
  in.dcs = e;
  ExpectGolden("etcd_tls_auth", RenderConfig(in));
}

TEST(ConfigTest, EtcdDcsPlainHttpMatchesGolden) {
  ConfigInput in = Base();
  in.dynamic_configuration = nullptr;
  in.use_pg_rewind = false;
  in.callback_script = "";
  EtcdDcs e;
  e.hosts = {"10.0.0.1:2379"};
  in.dcs = e;
  ExpectGolden("etcd_http", RenderConfig(in));
}

TEST(ConfigTest, RenderingIsDeterministic) {
  ConfigInput a = Base();
  a.dcs = EtcdDcs{.hosts = {"h:1"}};
  ConfigInput b = Base();
  b.dcs = EtcdDcs{.hosts = {"h:1"}};
  // The same values inserted in another order.
  b.parameters.clear();
  b.parameters["wal_level"] = "replica";
  b.parameters["hot_standby"] = "on";
  b.parameters["max_connections"] = "100";
  EXPECT_EQ(RenderConfig(a), RenderConfig(b));
}

TEST(ConfigTest, UserDynamicConfigurationWinsAndMergesDeeply) {
  ConfigInput in = Base();
  in.dcs = KubernetesDcs{};
  const nlohmann::json c = BuildConfig(in);
  const nlohmann::json& dcs = c["bootstrap"]["dcs"];
  EXPECT_EQ(dcs["postgresql"]["parameters"]["max_connections"], "200");
  EXPECT_EQ(dcs["postgresql"]["parameters"]["wal_level"], "replica");
  EXPECT_EQ(dcs["synchronous_mode"], true);
  EXPECT_EQ(dcs["ttl"], 30);
}

TEST(ConfigTest, EtcdDcsTurnsFailsafeModeOnUnlessTheUserSaysOtherwise) {
  ConfigInput in = Base();
  in.dcs = EtcdDcs{.hosts = {"h:1"}};
  EXPECT_EQ(BuildConfig(in)["bootstrap"]["dcs"]["failsafe_mode"], true);
  in.dynamic_configuration = {{"failsafe_mode", false}};
  EXPECT_EQ(BuildConfig(in)["bootstrap"]["dcs"]["failsafe_mode"], false);
}

TEST(ConfigTest, AMemberBehindTheClusterTimelineNeverLeadsUnlessTheUserSaysOtherwise) {
  using Dcs = std::variant<KubernetesDcs, EtcdDcs>;
  for (const Dcs& dcs : {Dcs{KubernetesDcs{}}, Dcs{EtcdDcs{.hosts = {"h:1"}}}}) {
    ConfigInput in = Base();
    in.dcs = dcs;
    EXPECT_EQ(DynamicConfig(in)["check_timeline"], true);
    EXPECT_EQ(BuildConfig(in)["bootstrap"]["dcs"]["check_timeline"], true);
    in.dynamic_configuration = {{"check_timeline", false}};
    EXPECT_EQ(DynamicConfig(in)["check_timeline"], false);
  }
}

TEST(ConfigTest, KubernetesDcsLeavesFailsafeModeToTheUser) {
  ConfigInput in = Base();
  in.dcs = KubernetesDcs{};
  EXPECT_FALSE(BuildConfig(in)["bootstrap"]["dcs"].contains("failsafe_mode"));
}

TEST(ConfigTest, NoSecretOrPerPodValueIsInTheFile) {
  ConfigInput in = Base();
  in.dcs = EtcdDcs{.hosts = {"h:1"}, .auth = true};
  const nlohmann::json c = BuildConfig(in);
  EXPECT_FALSE(c.contains("name"));
  EXPECT_FALSE(c["etcd3"].contains("username"));
  EXPECT_FALSE(c["etcd3"].contains("password"));
  EXPECT_FALSE(c["restapi"].contains("connect_address"));
  EXPECT_FALSE(c["postgresql"].contains("connect_address"));
  for (const auto& [user, entry] : c["postgresql"]["authentication"].items()) {
    EXPECT_FALSE(entry.contains("password")) << user;
  }
}

std::vector<std::string> Names(const std::vector<EnvVar>& env) {
  std::vector<std::string> out;
  for (const EnvVar& e : env) out.push_back(e.name);
  return out;
}

TEST(ConfigTest, PodEnvForKubernetesDcsSetsThePodIp) {
  ConfigInput in = Base();
  in.dcs = KubernetesDcs{};
  EXPECT_EQ(
      Names(PodEnv(in)),
      (std::vector<std::string>{
          "POD_NAME", "POD_NAMESPACE", "POD_IP", "PATRONI_NAME", "PATRONI_RESTAPI_CONNECT_ADDRESS",
          "PATRONI_POSTGRESQL_CONNECT_ADDRESS", "PATRONI_SUPERUSER_PASSWORD",
          "PATRONI_REPLICATION_PASSWORD", "PATRONI_REWIND_PASSWORD", "PATRONI_KUBERNETES_POD_IP"}));
}

TEST(ConfigTest, PodEnvForEtcdAuthCarriesCredentialsAndAKnownEtcd3Variable) {
  ConfigInput in = Base();
  in.use_pg_rewind = false;
  in.restapi_port = 8009;
  in.dcs = EtcdDcs{.hosts = {"h:1"}, .protocol = "https", .auth = true};
  const std::vector<EnvVar> env = PodEnv(in);
  EXPECT_EQ(Names(env),
            (std::vector<std::string>{
                "POD_NAME", "POD_NAMESPACE", "POD_IP", "PATRONI_NAME",
                "PATRONI_RESTAPI_CONNECT_ADDRESS", "PATRONI_POSTGRESQL_CONNECT_ADDRESS",
                "PATRONI_SUPERUSER_PASSWORD", "PATRONI_REPLICATION_PASSWORD",
                "PATRONI_ETCD3_PROTOCOL", "PATRONI_ETCD3_USERNAME", "PATRONI_ETCD3_PASSWORD"}));
  EXPECT_EQ(env[4],
            (EnvVar{"PATRONI_RESTAPI_CONNECT_ADDRESS", EnvSource::kLiteral, "$(POD_IP):8009"}));
  EXPECT_EQ(env[8], (EnvVar{"PATRONI_ETCD3_PROTOCOL", EnvSource::kLiteral, "https"}));
  EXPECT_EQ(env[9].source, EnvSource::kEtcdUsername);
}

TEST(ConfigTest, RestApiTlsServesTheCertificateAndTrustsTheCaForPeersAndPatronictl) {
  ConfigInput in = Base();
  in.dcs = EtcdDcs{.hosts = {"h:1"}};
  EXPECT_FALSE(BuildConfig(in).contains("ctl"));
  EXPECT_FALSE(BuildConfig(in)["restapi"].contains("certfile"));
  in.restapi_tls =
      RestApiTls{.cert_file = "/t/tls.crt", .key_file = "/t/tls.key", .ca_file = "/t/ca.crt"};
  const nlohmann::json c = BuildConfig(in);
  EXPECT_EQ(c["restapi"], (nlohmann::json{{"listen", "0.0.0.0:8008"},
                                          {"certfile", "/t/tls.crt"},
                                          {"keyfile", "/t/tls.key"},
                                          {"cafile", "/t/ca.crt"}}));
  // No verify_client: the REST API asks callers for no certificate.
  EXPECT_FALSE(c["restapi"].contains("verify_client"));
  // ctl.certfile keeps the daemon's peer calls on CERT_REQUIRED (Patroni
  // calls its peers "insecure", which without a certfile verifies nothing).
  EXPECT_EQ(c["ctl"],
            (nlohmann::json{
                {"cacert", "/t/ca.crt"}, {"certfile", "/t/tls.crt"}, {"keyfile", "/t/tls.key"}}));
  EXPECT_FALSE(c["ctl"].contains("insecure"));
}

TEST(ConfigTest, RestApiConnectAddressUsesTheGivenHost) {
  ConfigInput in = Base();
  in.dcs = EtcdDcs{.hosts = {"h:1"}};
  in.restapi_connect_host = "$(POD_NAME).hippo-pods.db.svc";
  const std::vector<EnvVar> env = PodEnv(in);
  EXPECT_EQ(env[4], (EnvVar{"PATRONI_RESTAPI_CONNECT_ADDRESS", EnvSource::kLiteral,
                            "$(POD_NAME).hippo-pods.db.svc:8008"}));
  // PostgreSQL's connect address stays the pod IP (replication: verify-ca).
  EXPECT_EQ(env[5],
            (EnvVar{"PATRONI_POSTGRESQL_CONNECT_ADDRESS", EnvSource::kLiteral, "$(POD_IP):5432"}));
}

TEST(ConfigTest, PodEnvWithoutEtcdAuthHasNoEtcdVariables) {
  ConfigInput in = Base();
  in.dcs = EtcdDcs{.hosts = {"h:1"}};
  for (const EnvVar& e : PodEnv(in))
    EXPECT_EQ(e.name.rfind("PATRONI_ETCD3_", 0), std::string::npos);
}

}  // namespace
}  // namespace quorum::patroni
