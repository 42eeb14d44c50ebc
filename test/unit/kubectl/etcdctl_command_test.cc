// etcdctl's access to an EtcdCluster: which Secrets are read for which spec,
// the endpoints, and the argv/environment — the password never in argv.
#include "src/kubectl/etcdctl_command.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/match.h"

namespace quorum::kubectl {
namespace {

constexpr char kPassword[] = "r00t-Passw0rd-xyz";

api::EtcdCluster Cluster(bool tls, bool auth) {
  api::EtcdCluster c;
  c.metadata.name = "sec";
  c.metadata.ns = "demo";
  c.spec.security.enable_auth = auth;
  if (tls) {
    c.spec.security.tls = {.peer_trusted_ca_secret = "sec-peer-ca",
                           .peer_secret = "sec-peer",
                           .server_trusted_ca_secret = "sec-server-ca",
                           .server_secret = "sec-server",
                           .client_trusted_ca_secret = "sec-client-ca",
                           .client_secret = "sec-client"};
  }
  c.status.members = {{.name = "sec-1"}, {.name = "sec-0"}};
  return c;
}

TEST(EtcdAccessTest, SecretsFollowTheSpecAsTheOperatorReadsThem) {
  struct Case {
    bool tls, auth;
    std::string auth_status;
    EtcdSecretRefs want;
  };
  const std::vector<Case> cases = {
      {false, false, "", {}},
      {true, false, "", {.ca = "sec-server-ca", .client_cert = "sec-client"}},
      {false, true, "", {.auth = "sec-root-auth"}},
      {true,
       true,
       "custom-auth",
       {.ca = "sec-server-ca", .client_cert = "sec-client", .auth = "custom-auth"}},
  };
  for (const Case& c : cases) {
    api::EtcdCluster cluster = Cluster(c.tls, c.auth);
    cluster.status.auth_secret_name = c.auth_status;
    const EtcdSecretRefs got = SecretRefsOf(cluster);
    EXPECT_EQ(got.ca, c.want.ca);
    EXPECT_EQ(got.client_cert, c.want.client_cert);
    EXPECT_EQ(got.auth, c.want.auth);
  }
}

TEST(EtcdAccessTest, ServiceAndMembersUseTheSchemeOfServerTls) {
  EtcdAccess plain = AccessSkeleton(Cluster(false, false));
  EXPECT_EQ(ServiceEndpoint(plain, "", ""), "http://sec.demo.svc:2379");
  EtcdAccess tls = AccessSkeleton(Cluster(true, false));
  EXPECT_EQ(ServiceEndpoint(tls, "", ""), "https://sec.demo.svc:2379");
  EXPECT_EQ(ServiceEndpoint(tls, "127.0.0.1", "12379"), "https://127.0.0.1:12379");
  EXPECT_EQ(ServiceEndpoint(tls, "::1", ""), "https://[::1]:2379");
  const std::vector<EtcdMemberEndpoint> want = {
      {"sec-0", "https://sec-0.sec-headless.demo.svc:2379"},
      {"sec-1", "https://sec-1.sec-headless.demo.svc:2379"}};
  EXPECT_EQ(tls.members, want);
  api::EtcdCluster named = Cluster(false, false);
  named.spec.service_template.metadata.name = "client";
  EXPECT_EQ(ServiceEndpoint(AccessSkeleton(named), "", ""), "http://client.demo.svc:2379");
}

TEST(EtcdctlInvocationTest, FilesInFlagsCredentialsOnlyInTheEnvironment) {
  EtcdAccess a = AccessSkeleton(Cluster(true, true));
  a.user = "root";
  a.password = kPassword;
  const EtcdctlInvocation inv = BuildEtcdctlInvocation(
      a, "https://sec.demo.svc:2379",
      {.ca = "/proc/self/fd/3", .cert = "/proc/self/fd/4", .key = "/proc/self/fd/5"},
      {"put", "k", "v"});
  const std::vector<std::string> want = {"etcdctl",
                                         "--endpoints=https://sec.demo.svc:2379",
                                         "--cacert=/proc/self/fd/3",
                                         "--cert=/proc/self/fd/4",
                                         "--key=/proc/self/fd/5",
                                         "--dial-timeout=30s",
                                         "put",
                                         "k",
                                         "v"};
  EXPECT_EQ(inv.argv, want);
  for (const std::string& arg : inv.argv) EXPECT_FALSE(absl::StrContains(arg, kPassword)) << arg;
  auto env = [&](const std::string& key) {
    auto it =
        std::find_if(inv.env.begin(), inv.env.end(), [&](auto& kv) { return kv.first == key; });
    return it == inv.env.end() ? std::string("<unset>") : it->second;
  };
  EXPECT_EQ(env("ETCDCTL_USER"), "root");
  EXPECT_EQ(env("ETCDCTL_PASSWORD"), kPassword);
  // Variables the flags also set are removed, or etcdctl refuses to run.
  for (const char* k : {"ETCDCTL_ENDPOINTS", "ETCDCTL_CACERT", "ETCDCTL_CERT", "ETCDCTL_KEY",
                        "ETCDCTL_DIAL_TIMEOUT"}) {
    EXPECT_EQ(env(k), "") << k;
  }
}

TEST(EtcdctlInvocationTest, WithoutAuthOrTlsNoCredentialsAndNoFileFlags) {
  const EtcdAccess a = AccessSkeleton(Cluster(false, false));
  const EtcdctlInvocation inv =
      BuildEtcdctlInvocation(a, "http://sec.demo.svc:2379", {}, {"get", "k"});
  const std::vector<std::string> want = {"etcdctl", "--endpoints=http://sec.demo.svc:2379",
                                         "--dial-timeout=30s", "get", "k"};
  EXPECT_EQ(inv.argv, want);
  // A dial timeout of the user's own is kept, and ours not added.
  const EtcdctlInvocation own =
      BuildEtcdctlInvocation(a, "http://sec.demo.svc:2379", {}, {"--dial-timeout=5s", "get", "k"});
  EXPECT_EQ(own.argv, (std::vector<std::string>{"etcdctl", "--endpoints=http://sec.demo.svc:2379",
                                                "--dial-timeout=5s", "get", "k"}));
  for (const auto& [k, v] : inv.env) {
    if (k == "ETCDCTL_USER" || k == "ETCDCTL_PASSWORD") {
      EXPECT_EQ(v, "") << k << " removed";
    }
  }
}

}  // namespace
}  // namespace quorum::kubectl
