// The data plane with the kubernetes DCS: three real Patroni + PostgreSQL
// members on loopback keep their leader lock in Endpoints objects of the real
// API server, reached through a kubeconfig that carries a ServiceAccount
// token (Patroni's kubernetes DCS falls back to $KUBECONFIG outside a pod).
// Checks bootstrap, replication, the leader Endpoints, role labels (Patroni
// sets them itself with this DCS) and a switchover through the REST API.
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "src/patroni/config.h"
#include "src/patroni/rest_client.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/patroni/kube_objects.h"
#include "test/integration/patroni/patroni_harness.h"
#include "test/integration/testenv.h"

namespace quorum::patroni {
namespace {

using etcd::testing::FreePorts;
using testenv::Eventually;

constexpr int kMembers = 3;
constexpr char kSuperuserPassword[] = "su-pass-2";

class KubernetesDcsTest : public testenv::IntegrationTest {
 protected:
  std::string Pod(int k) const { return absl::StrCat("pk-", k); }
  std::string ApiUrl(int k) const { return absl::StrCat("http://127.0.0.1:", ports_[2 * k]); }
  int PgPort(int k) const { return ports_[2 * k + 1]; }

  // The member that reports itself running as primary, -1 if not exactly one.
  int Primary(RestClient& rest) {
    std::vector<std::string> urls;
    for (int k = 0; k < kMembers; ++k) urls.push_back(ApiUrl(k));
    return testing::RunningPrimary(rest, urls);
  }

  bool LabelsAre(int primary) {
    for (int k = 0; k < kMembers; ++k) {
      if (testing::RoleLabel(client(), ns(), Pod(k)) != (k == primary ? "primary" : "replica")) {
        return false;
      }
    }
    return true;
  }

  std::string Logs() {
    return patroni_.LogTails([this](int k) { return Pod(k); });
  }

  std::vector<int> ports_;
  testing::PatroniHarness patroni_;
};

TEST_F(KubernetesDcsTest, BootstrapsReplicatesAndSwitchesOverWithLeaderInTheApiServer) {
  absl::StatusOr<std::string> token = testing::CreateServiceAccountToken(client(), ns(), "pk");
  ASSERT_TRUE(token.ok()) << token.status();
  const std::map<std::string, std::string> labels = {{"app", "pk"}, {"cluster-name", "pk"}};
  for (int k = 0; k < kMembers; ++k) {
    ASSERT_TRUE(testing::CreatePod(client(), ns(), Pod(k), labels).ok());
  }
  const absl::Status init = patroni_.Init(kMembers);
  ASSERT_TRUE(init.ok()) << init;
  ports_ = FreePorts(2 * kMembers);
  ASSERT_EQ(ports_.size(), 2u * kMembers);

  // A kubeconfig with the ServiceAccount's token, readable by the members.
  const std::string ca_file = patroni_.root() + "/kube-ca.crt";
  const std::string kubeconfig = patroni_.root() + "/kubeconfig";
  std::ofstream(ca_file) << control_plane().config.ca_pem;
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\n"
                            << "clusters:\n- name: test\n  cluster:\n    server: "
                            << control_plane().config.server
                            << "\n    certificate-authority: " << ca_file
                            << "\nusers:\n- name: pk\n  user:\n    token: " << *token
                            << "\ncontexts:\n- name: test\n  context: {cluster: test, user: pk}\n"
                            << "current-context: test\n";
  chmod(kubeconfig.c_str(), 0644);

  for (int k = 0; k < kMembers; ++k) {
    ConfigInput in;
    in.scope = "pk";
    in.key_namespace = absl::StrCat("/quorum/", ns(), "/");
    in.ttl = 20;
    in.loop_wait = 2;
    in.retry_timeout = 5;
    in.parameters = {{"max_connections", "30"}, {"shared_buffers", "16MB"}};
    in.pg_hba = {"local all all trust", "host replication replicator 127.0.0.1/32 scram-sha-256",
                 "host all all 127.0.0.1/32 scram-sha-256"};
    in.local_parameters = {{"unix_socket_directories", patroni_.MemberDir(k)}};
    in.listen_host = "127.0.0.1";
    in.restapi_port = ports_[2 * k];
    in.postgres_port = ports_[2 * k + 1];
    in.data_dir = patroni_.DataDir(k);
    in.bin_dir = patroni_.binaries().pg_bin_dir;
    in.pgpass = patroni_.MemberDir(k) + "/pgpass";
    KubernetesDcs dcs;
    dcs.namespace_ = ns();
    dcs.labels = {{"app", "pk"}};
    in.dcs = dcs;
    testing::MemberEnv m;
    m.pod_name = Pod(k);
    m.pod_namespace = ns();
    m.superuser_password = kSuperuserPassword;
    m.replication_password = "repl-pass-2";
    m.rewind_password = "rewind-pass-2";
    m.extra = {{"KUBECONFIG", kubeconfig},
               {"PATRONI_KUBERNETES_CONTEXT", "test"},
               // The API server refuses loopback addresses in Endpoints, and
               // these Pending pods have no IP: leave the leader Endpoints
               // without addresses (Patroni then keeps only its annotations).
               {"PATRONI_KUBERNETES_POD_IP", ""}};
    ASSERT_TRUE(patroni_.Start(k, RenderConfig(in), testing::ResolveEnv(in, m)).ok());
  }

  RestClient rest({.timeout = absl::Seconds(3)});
  int primary = -1;
  ASSERT_TRUE(Eventually(
      [&] {
        primary = Primary(rest);
        if (primary < 0) return false;
        absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(primary));
        if (!c.ok() || c->members.size() != kMembers) return false;
        int streaming = 0;
        for (const ClusterMember& m : c->members) streaming += m.state == "streaming";
        return streaming == kMembers - 1;
      },
      absl::Seconds(150)))
      << Logs();

  // The leader lock lives in the API server.
  absl::StatusOr<kube::Json> ep = client().Get({"", "v1", "endpoints"}, ns(), "pk");
  ASSERT_TRUE(ep.ok()) << ep.status();
  EXPECT_EQ((*ep)["metadata"]["annotations"].value("leader", ""), Pod(primary));
  // ... labelled with the DCS's labels: the operator caches only Endpoints
  // carrying its clusters' labels (controllers/common/cache_scopes.cc).
  EXPECT_EQ((*ep)["metadata"]["labels"].value("app", ""), "pk") << ep->dump();
  // Patroni labels its own pods with this DCS.
  EXPECT_TRUE(Eventually([&] { return LabelsAre(primary); }, absl::Seconds(30))) << Logs();

  ASSERT_TRUE(patroni_
                  .Sql(PgPort(primary), kSuperuserPassword,
                       "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (7);")
                  .ok());
  const int replica = (primary + 1) % kMembers;
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<std::string> r =
            patroni_.Sql(PgPort(replica), kSuperuserPassword, "SELECT id FROM t");
        return r.ok() && *r == "7";
      },
      absl::Seconds(30)));

  // A switchover through the REST API moves the lock and the labels.
  ASSERT_TRUE(
      Eventually([&] { return rest.Switchover(ApiUrl(primary), Pod(primary), Pod(replica)).ok(); },
                 absl::Seconds(60)))
      << Logs();
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == replica; }, absl::Seconds(60))) << Logs();
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Json> e = client().Get({"", "v1", "endpoints"}, ns(), "pk");
        return e.ok() && (*e)["metadata"]["annotations"].value("leader", "") == Pod(replica);
      },
      absl::Seconds(30)));
  EXPECT_TRUE(Eventually([&] { return LabelsAre(replica); }, absl::Seconds(30))) << Logs();
}

}  // namespace
}  // namespace quorum::patroni
