// Which DCS keeps strangers out of Patroni's keys (the DCSSecure condition).
#include "api/postgrescluster_dcs_security.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::api {
namespace {

PostgresClusterSpec Etcd(std::vector<std::string> endpoints, std::string tls = "",
                         std::string auth = "") {
  PostgresClusterSpec spec;
  spec.patroni.dcs.type = std::string(kDcsEtcd);
  spec.patroni.dcs.etcd.endpoints = std::move(endpoints);
  spec.patroni.dcs.etcd.tls_secret = std::move(tls);
  spec.patroni.dcs.etcd.auth_secret = std::move(auth);
  return spec;
}

TEST(DcsSecurityTest, EachDcsAndWhatItLacks) {
  struct Case {
    const char* name;
    PostgresClusterSpec spec;
    bool secure;
    const char* reason;
  } cases[] = {
      {"kubernetes", PostgresClusterSpec{}, true, "KubernetesApi"},
      {"http", Etcd({"http://etcd:2379"}, "", "creds"), false, "EtcdWithoutTls"},
      {"https-bare", Etcd({"https://etcd:2379"}), false, "EtcdWithoutCredentials"},
      {"https-auth", Etcd({"https://etcd:2379"}, "", "creds"), true, "UserManagedEtcd"},
      {"https-cert", Etcd({"https://etcd:2379"}, "tls"), true, "UserManagedEtcd"},
      {"mixed", Etcd({"https://a:2379", "http://b:2379"}, "tls"), false, "EtcdWithoutTls"},
  };
  for (const Case& c : cases) {
    const DcsSecurity s = DcsSecurityOf(c.spec, nullptr);
    EXPECT_EQ(s.secure, c.secure) << c.name;
    EXPECT_EQ(s.reason, c.reason) << c.name << ": " << s.message;
    EXPECT_FALSE(s.message.empty()) << c.name;
  }
}

TEST(DcsSecurityTest, AClusterRefNeedsClientTlsAndAuth) {
  PostgresClusterSpec spec;
  spec.patroni.dcs.type = std::string(kDcsEtcd);
  spec.patroni.dcs.etcd.cluster_ref = "dcs";
  EXPECT_EQ(DcsSecurityOf(spec, nullptr).reason, "EtcdClusterNotFound");
  EtcdCluster etcd;
  EXPECT_EQ(DcsSecurityOf(spec, &etcd).reason, "EtcdWithoutTlsAndAuth");
  etcd.spec.security.enable_auth = true;
  EXPECT_EQ(DcsSecurityOf(spec, &etcd).reason, "EtcdWithoutTls");
  etcd.spec.security.enable_auth = false;
  etcd.spec.security.tls.server_secret = "dcs-server";
  const DcsSecurity no_auth = DcsSecurityOf(spec, &etcd);
  EXPECT_EQ(no_auth.reason, "EtcdWithoutAuth");
  EXPECT_FALSE(no_auth.secure);
  EXPECT_TRUE(absl::StartsWith(no_auth.message, "spec.patroni.dcs.etcd.clusterRef: "))
      << no_auth.message;
  etcd.spec.security.enable_auth = true;
  const DcsSecurity both = DcsSecurityOf(spec, &etcd);
  EXPECT_TRUE(both.secure);
  EXPECT_EQ(both.reason, "EtcdTlsAndAuth");
}

}  // namespace
}  // namespace quorum::api
