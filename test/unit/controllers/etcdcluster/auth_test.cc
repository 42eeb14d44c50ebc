#include "src/controllers/etcdcluster/auth.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/escaping.h"
#include "src/controllers/etcdcluster/status.h"
#include "src/runtime/random.h"

namespace quorum::etcdcluster {
namespace {

EtcdCluster Cluster(bool enable_auth) {
  const Json obj = {
      {"apiVersion", "etcd.aenix.io/v1alpha1"},
      {"kind", "EtcdCluster"},
      {"metadata", {{"name", "dcs"}, {"namespace", "db"}, {"uid", "u-1"}, {"generation", 2}}},
      {"spec",
       {{"replicas", 3},
        {"security",
         {{"enableAuth", enable_auth},
          {"tls",
           {{"serverSecret", "srv"},
            {"serverTrustedCASecret", "srv-ca"},
            {"clientTrustedCASecret", "cli-ca"},
            {"clientSecret", "cli"}}}}}}}};
  absl::StatusOr<EtcdCluster> c = api::ParseEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : EtcdCluster{};
}

TEST(AuthTest, SecretIsOwnedBasicAuthWithRoot) {
  const Json secret = BuildAuthSecret(Cluster(true), "s3cret");
  EXPECT_EQ(secret["metadata"]["name"], "dcs-root-auth");
  EXPECT_EQ(secret["metadata"]["namespace"], "db");
  EXPECT_EQ(secret["type"], "kubernetes.io/basic-auth");
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], "u-1");
  std::string user, password;
  ASSERT_TRUE(absl::Base64Unescape(secret["data"]["username"].get<std::string>(), &user));
  ASSERT_TRUE(absl::Base64Unescape(secret["data"]["password"].get<std::string>(), &password));
  EXPECT_EQ(user, "root");
  EXPECT_EQ(password, "s3cret");
}

TEST(AuthTest, StatusNamesTheAuthSecretOnlyWithEnableAuth) {
  EtcdView view;
  for (bool on : {true, false}) {
    const EtcdCluster cluster = Cluster(on);
    const Json status = api::ToJson(
        BuildStatus({.cluster = &cluster, .etcd = &view, .auth_on = on, .now = absl::Now()}));
    EXPECT_EQ(status.contains("authSecretName"), on);
    if (on) {
      EXPECT_EQ(status["authSecretName"], "dcs-root-auth");
    }
    EXPECT_EQ(status["clientSecretName"], "cli");
  }
}

// Clients (the PostgresClusters on it) take status.authSecretName as "auth is
// enforced": it appears once etcd said so, and stays when a later pass could
// not ask (a member down, a step in progress).
TEST(AuthTest, StatusNamesTheAuthSecretOnceAuthIsOnAndKeepsIt) {
  EtcdView view;
  EtcdCluster cluster = Cluster(true);
  Json status = api::ToJson(BuildStatus({.cluster = &cluster, .etcd = &view, .now = absl::Now()}));
  EXPECT_FALSE(status.contains("authSecretName")) << "named before etcd enforced auth";
  status = api::ToJson(
      BuildStatus({.cluster = &cluster, .etcd = &view, .auth_on = true, .now = absl::Now()}));
  ASSERT_EQ(status.value("authSecretName", ""), "dcs-root-auth");
  cluster.status.auth_secret_name = "dcs-root-auth";
  status = api::ToJson(BuildStatus({.cluster = &cluster, .etcd = &view, .now = absl::Now()}));
  EXPECT_EQ(status.value("authSecretName", ""), "dcs-root-auth") << "dropped once it was on";
}

TEST(RandomPasswordTest, AlphanumericOfTheLengthAskedAndNotRepeated) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<std::string> p = runtime::RandomPassword(24);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->size(), 24u);
    for (char c : *p) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << *p;
    seen.insert(*p);
  }
  EXPECT_EQ(seen.size(), 50u);
}

}  // namespace
}  // namespace quorum::etcdcluster
