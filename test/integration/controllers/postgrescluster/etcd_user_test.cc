// Issue 15.3 against a real control plane and a real etcd with client
// certificates and auth on: a PostgresCluster on an EtcdCluster (clusterRef)
// gets an etcd user and role of its own and a client certificate issued from
// the EtcdCluster's client CA; its pods are given those, never root and never
// the operator's certificate; the credentials read and write the cluster's
// own Patroni keys and are refused on another cluster's keys and on `/`;
// deleting the cluster removes the user and the role. Without the CA's key
// the cluster waits (DCSReady False, EtcdClientCertUnavailable) and goes on
// once the key is added.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/client.h"
#include "src/runtime/certs.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

Json Cluster(const std::string& name) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"postgresVersion", 15},
            {"instances",
             {{{"name", "main"},
               {"replicas", 1},
               {"dataVolumeClaimSpec",
                {{"accessModes", {"ReadWriteOnce"}},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
            {"patroni",
             {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}}}}}};
}

Json Secret(const std::string& name, std::map<std::string, std::string> data) {
  Json d = Json::object();
  for (const auto& [k, v] : data) d[k] = absl::Base64Escape(v);
  return {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}, {"data", d}};
}

std::string Decoded(const Json& secret, const char* key) {
  std::string out;
  absl::Base64Unescape(secret["data"].value(key, ""), &out);
  return out;
}

bool Contains(const absl::StatusOr<std::vector<std::string>>& names, const std::string& name) {
  return names.ok() && std::find(names->begin(), names->end(), name) != names->end();
}

class EtcdUserTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml", "postgres.quorum.dev_postgresclusters.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<PostgresClusterReconciler>(client, manager.cache(),
                                                                    manager.recorder());
          return SetupPostgresClusterController(manager, *reconciler_, 2);
        });
  }
  Json Condition(const std::string& name, const std::string& type) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    if (!got.ok()) return nullptr;
    for (const Json& c :
         (*got).value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return nullptr;
  }

  std::unique_ptr<PostgresClusterReconciler> reconciler_;
};

TEST_F(EtcdUserTest, EachClusterGetsAnEtcdUserLimitedToItsOwnKeys) {
  // --- etcd with client certificates and auth on (as the EtcdCluster
  // controller leaves it: a root user with the root role) ---------------------
  etcd::testing::EtcdHarness harness({.max_members = 1, .tls = true, .name_prefix = "dcs"});
  ASSERT_TRUE(harness.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> setup = etcd::Client::Create(harness.Config());
  ASSERT_TRUE(setup.ok());
  ASSERT_TRUE(harness.StartNewCluster(**setup, 1).ok()) << harness.LogTail(0);
  ASSERT_TRUE((*setup)->UserAdd("root", "root-pass").ok());
  ASSERT_TRUE((*setup)->RoleAdd("root").ok());
  ASSERT_TRUE((*setup)->UserGrantRole("root", "root").ok());
  ASSERT_TRUE((*setup)->AuthEnable().ok());
  etcd::ClientConfig root_config = harness.Config();
  root_config.username = "root";
  root_config.password = "root-pass";
  absl::StatusOr<std::unique_ptr<etcd::Client>> root = etcd::Client::Create(root_config);
  ASSERT_TRUE(root.ok());
  etcd::Client& etcd_root = **root;

  // --- The EtcdCluster's Secrets and status (no etcd controller runs here) -----
  const etcd::testing::TlsMaterial& tls = harness.tls();
  const std::string ca_key = etcd::testing::ReadFile(harness.root() + "/ca.key");
  ASSERT_FALSE(ca_key.empty());
  for (const Json& s : {Secret("dcs-client", {{"ca.crt", tls.ca_pem},
                                              {"tls.crt", tls.client_cert_pem},
                                              {"tls.key", tls.client_key_pem}}),
                        Secret("dcs-root-auth", {{"username", "root"}, {"password", "root-pass"}}),
                        Secret("dcs-server-ca", {{"ca.crt", tls.ca_pem}}),
                        // First without the CA's key: the pods cannot get a certificate.
                        Secret("dcs-client-ca", {{"ca.crt", tls.ca_pem}})}) {
    ASSERT_TRUE(client().Create(kSecrets, ns(), s).ok()) << s.dump();
  }
  Json etcd_cluster = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                       {"kind", "EtcdCluster"},
                       {"metadata", {{"name", "dcs"}}},
                       {"spec",
                        {{"replicas", 1},
                         {"security",
                          {{"enableAuth", true},
                           {"tls",
                            {{"serverTrustedCASecret", "dcs-server-ca"},
                             {"serverSecret", "dcs-server"},
                             {"clientTrustedCASecret", "dcs-client-ca"},
                             {"clientSecret", "dcs-client"}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd_cluster).ok());
  Json status = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                 {"kind", "EtcdCluster"},
                 {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
                 {"status",
                  {{"conditions",
                    {{{"type", "Ready"},
                      {"status", "True"},
                      {"reason", "StatefulSetReady"},
                      {"message", "test"},
                      {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
                   {"clientEndpoint", harness.ClientUrl(0)},
                   {"clientSecretName", "dcs-client"},
                   {"authSecretName", "dcs-root-auth"}}}};
  ASSERT_TRUE(
      client()
          .ApplyStatus(kEtcdClusters, ns(), status, {.field_manager = "test", .force = true})
          .ok());

  // --- Without the CA's key: waits, never falls back to the operator's identity
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("a")).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("a", "DCSReady");
        return c.is_object() && c["reason"] == "EtcdClientCertUnavailable";
      },
      absl::Seconds(30)))
      << Condition("a", "DCSReady").dump();
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "a-main").status()));
  // TLS for clients and auth: the DCS keeps strangers out (issue 34).
  EXPECT_EQ(Condition("a", "DCSSecure")["status"], "True") << Condition("a", "DCSSecure").dump();
  EXPECT_EQ(Condition("a", "DCSSecure")["reason"], "EtcdTlsAndAuth");

  // The CA Secret gains its key (as a cert-manager CA Certificate holds it).
  auto ca = client().Get(kSecrets, ns(), "dcs-client-ca");
  ASSERT_TRUE(ca.ok());
  (*ca)["data"]["tls.crt"] = absl::Base64Escape(tls.ca_pem);
  (*ca)["data"]["tls.key"] = absl::Base64Escape(ca_key);
  ASSERT_TRUE(client().Update(kSecrets, ns(), *ca).ok());
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("b")).ok());
  for (const char* name : {"a-main", "b-main"}) {
    ASSERT_TRUE(
        Eventually([&] { return client().Get(kStatefulSets, ns(), name).ok(); }, absl::Seconds(60)))
        << name << " " << Condition("a", "DCSReady").dump();
  }

  // --- The pods get their own identity ------------------------------------------
  const std::string dump = client().Get(kStatefulSets, ns(), "a-main")->dump();
  EXPECT_TRUE(absl::StrContains(dump, R"({"key":"username","name":"a-etcd-user"})")) << dump;
  EXPECT_TRUE(absl::StrContains(dump, R"("secretName":"a-etcd-client")")) << dump;
  EXPECT_FALSE(absl::StrContains(dump, "dcs-root-auth")) << "never root";
  EXPECT_FALSE(absl::StrContains(dump, "\"dcs-client\"")) << "never the operator's certificate";
  auto user_secret = client().Get(kSecrets, ns(), "a-etcd-user");
  auto cert_secret = client().Get(kSecrets, ns(), "a-etcd-client");
  ASSERT_TRUE(user_secret.ok() && cert_secret.ok());
  EXPECT_EQ((*user_secret)["type"], "kubernetes.io/basic-auth");
  const std::string user = "quorum-pg." + ns() + ".a";
  EXPECT_EQ(Decoded(*user_secret, "username"), user);
  EXPECT_NE(Decoded(*cert_secret, "tls.crt"), tls.client_cert_pem);

  etcd::ClientConfig pod_config;
  pod_config.endpoints = {harness.ClientUrl(0)};
  pod_config.ca_pem = Decoded(*cert_secret, "ca.crt");
  pod_config.cert_pem = Decoded(*cert_secret, "tls.crt");
  pod_config.key_pem = Decoded(*cert_secret, "tls.key");
  pod_config.username = Decoded(*user_secret, "username");
  pod_config.password = Decoded(*user_secret, "password");
  absl::StatusOr<std::unique_ptr<etcd::Client>> pod = etcd::Client::Create(pod_config);
  ASSERT_TRUE(pod.ok());
  const std::string mine = "/quorum/" + ns() + "/a/";
  ASSERT_TRUE((*pod)->Put(mine + "leader", "a-main-0").ok());
  absl::StatusOr<etcd::GetResponse> read = (*pod)->Get(mine + "leader");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->value, "a-main-0");
  for (const std::string& other :
       {"/quorum/" + ns() + "/b/leader", "/quorum/" + ns() + "/ab/leader", std::string("/")}) {
    EXPECT_TRUE(absl::IsPermissionDenied((*pod)->Put(other, "x").status())) << other;
    EXPECT_TRUE(absl::IsPermissionDenied((*pod)->Get(other).status())) << other;
  }
  EXPECT_TRUE(absl::IsPermissionDenied((*pod)->DeletePrefix("/").status()));
  EXPECT_FALSE((*pod)->UserList().ok()) << "no auth administration";

  // --- A certificate that expires soon is rewritten in place (issue 34) ------------
  absl::StatusOr<runtime::CertKeyPair> short_lived = runtime::GenerateClientCert(
      {tls.ca_pem, ca_key}, "quorum-postgres", absl::Minutes(10), absl::Now());
  ASSERT_TRUE(short_lived.ok());
  auto due = client().Get(kSecrets, ns(), "a-etcd-client");
  ASSERT_TRUE(due.ok());
  const std::string uid = (*due)["metadata"]["uid"];
  (*due)["data"]["tls.crt"] = absl::Base64Escape(short_lived->cert_pem);
  (*due)["data"]["tls.key"] = absl::Base64Escape(short_lived->key_pem);
  ASSERT_TRUE(client().Update(kSecrets, ns(), *due).ok());
  std::string renewed;
  ASSERT_TRUE(Eventually(
      [&] {
        auto s = client().Get(kSecrets, ns(), "a-etcd-client");
        renewed = s.ok() ? Decoded(*s, "tls.crt") : "";
        return !renewed.empty() && renewed != short_lived->cert_pem;
      },
      absl::Seconds(30)))
      << "the certificate due for renewal was not rewritten";
  EXPECT_EQ(client().Get(kSecrets, ns(), "a-etcd-client")->at("metadata").at("uid"), uid)
      << "rewritten in place, so the kubelet swaps the pods' files";
  absl::StatusOr<absl::Time> not_after = runtime::CertificateNotAfter(renewed);
  ASSERT_TRUE(not_after.ok());
  EXPECT_GT(*not_after - absl::Now(), absl::Hours(1)) << "valid as long as the CA (capped)";

  // --- Deleting removes the user and its role, and only those ---------------------
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "a").ok());
  // The bound covers the garbage collector removing the StatefulSet's pods on
  // a machine busy with other tests.
  ASSERT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "a").status()); },
      absl::Seconds(90)));
  EXPECT_FALSE(Contains(etcd_root.UserList(), user));
  EXPECT_FALSE(Contains(etcd_root.RoleList(), user));
  EXPECT_TRUE(Contains(etcd_root.UserList(), "quorum-pg." + ns() + ".b"));
  EXPECT_TRUE(Contains(etcd_root.RoleList(), "quorum-pg." + ns() + ".b"));
  absl::StatusOr<etcd::GetResponse> gone = etcd_root.Get(mine + "leader");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->value, std::nullopt);
}

}  // namespace
}  // namespace quorum::postgrescluster
