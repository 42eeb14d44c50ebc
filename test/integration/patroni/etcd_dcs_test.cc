// The data plane with the etcd DCS: three real Patroni + PostgreSQL members on
// loopback against real etcd with TLS and auth, configured by RenderConfig and
// PodEnv. Checks bootstrap, replication, failover without losing committed
// rows, the role callback patching Pod objects in the real API server, and the
// operator-side role sync correcting labels when the callback has no rights.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "src/etcd/client.h"
#include "src/etcd/keys.h"
#include "src/patroni/config.h"
#include "src/patroni/dcs_cleanup.h"
#include "src/patroni/readiness.h"
#include "src/patroni/rest_client.h"
#include "src/patroni/role_sync.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/patroni/kube_objects.h"
#include "test/integration/patroni/patroni_harness.h"
#include "test/integration/testenv.h"

namespace quorum::patroni {
namespace {

using etcd::testing::EtcdHarness;
using etcd::testing::FreePorts;
using testenv::Eventually;
using testing::PatroniHarness;

constexpr int kMembers = 3;
constexpr char kSuperuserPassword[] = "su-pass-1";

class EtcdDcsTest : public testenv::IntegrationTest {
 protected:
  std::string Pod(int k) const { return absl::StrCat("pg-", k); }
  std::string ApiUrl(int k) const { return absl::StrCat("http://127.0.0.1:", ports_[2 * k]); }
  int PgPort(int k) const { return ports_[2 * k + 1]; }

  std::map<std::string, Endpoint> ApiUrls() const {
    std::map<std::string, Endpoint> out;
    for (int k = 0; k < kMembers; ++k) out[Pod(k)] = ApiUrl(k);
    return out;
  }

  // The member that reports itself running as primary, -1 if not exactly one.
  int Primary(RestClient& rest) {
    std::vector<std::string> urls;
    for (int k = 0; k < kMembers; ++k) urls.push_back(ApiUrl(k));
    return testing::RunningPrimary(rest, urls);
  }

  std::string Logs() {
    return patroni_.LogTails([this](int k) { return Pod(k); });
  }

  // Runs the pods' readiness probe command against REST API `port`; its exit code.
  static int RunProbe(int port) {
    const std::vector<std::string> command = ReadinessProbeCommand(port);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      execvp(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::vector<int> ports_;
  // Destroyed in reverse order: the members stop while etcd still runs.
  EtcdHarness etcd_harness_{{.max_members = 1, .tls = true, .name_prefix = "dcs"}};
  testing::PatroniHarness patroni_;
};

TEST_F(EtcdDcsTest, BootstrapsReplicatesFailsOverAndKeepsRoleLabelsTrue) {
  // --- etcd with TLS (client certificates) and auth --------------------------
  EtcdHarness& etcd_harness = etcd_harness_;
  ASSERT_TRUE(etcd_harness.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> root = etcd::Client::Create(etcd_harness.Config());
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_TRUE(etcd_harness.StartNewCluster(**root, 1).ok()) << etcd_harness.LogTail(0);
  const std::string key_prefix = absl::StrCat("/quorum/", ns(), "/");
  ASSERT_TRUE((*root)->UserAdd("root", "root-pass").ok());
  ASSERT_TRUE((*root)->RoleAdd("root").ok());
  ASSERT_TRUE((*root)->UserGrantRole("root", "root").ok());
  ASSERT_TRUE((*root)->UserAdd("patroni", "etcd-pass").ok());
  ASSERT_TRUE((*root)->RoleAdd("patroni").ok());
  // Patroni's keys only: the cluster's own prefix, as the operator grants
  // its pods' etcd user (issue 15.3).
  const std::string cluster_prefix = ClusterKeyPrefix(key_prefix, "pg");
  ASSERT_TRUE((*root)
                  ->RoleGrantPermission("patroni", cluster_prefix,
                                        etcd::PrefixRangeEnd(cluster_prefix),
                                        etcd::Permission::kReadWrite)
                  .ok());
  ASSERT_TRUE((*root)->UserGrantRole("patroni", "patroni").ok());
  ASSERT_TRUE((*root)->AuthEnable().ok());
  // With auth on, the operator reads the leader key as a user.
  etcd::ClientConfig reader_config = etcd_harness.Config();
  reader_config.username = "patroni";
  reader_config.password = "etcd-pass";
  absl::StatusOr<std::unique_ptr<etcd::Client>> reader = etcd::Client::Create(reader_config);
  ASSERT_TRUE(reader.ok()) << reader.status();

  // The members read the TLS files as the postgres user.
  chmod(etcd_harness.root().c_str(), 0755);
  chmod((etcd_harness.root() + "/client.key").c_str(), 0644);

  // --- Kubernetes objects: member pods and the pods' identity ------------------
  absl::StatusOr<std::string> token = testing::CreateServiceAccountToken(client(), ns(), "pg");
  ASSERT_TRUE(token.ok()) << token.status();
  for (int k = 0; k < kMembers; ++k) {
    ASSERT_TRUE(testing::CreatePod(client(), ns(), Pod(k), {{"cluster", "pg"}}).ok());
  }

  // --- Patroni members -------------------------------------------------------
  const absl::Status init = patroni_.Init(kMembers);
  ASSERT_TRUE(init.ok()) << init;
  ports_ = FreePorts(2 * kMembers);
  ASSERT_EQ(ports_.size(), 2u * kMembers);
  const std::string token_file = patroni_.root() + "/token";
  const std::string ca_file = patroni_.root() + "/kube-ca.crt";
  std::ofstream(token_file) << *token;
  std::ofstream(ca_file) << control_plane().config.ca_pem;
  chmod(token_file.c_str(), 0644);

  const std::string etcd_host = etcd_harness.ClientUrl(0).substr(std::string("https://").size());
  for (int k = 0; k < kMembers; ++k) {
    ConfigInput in;
    in.scope = "pg";
    in.key_namespace = key_prefix;
    in.ttl = 20;
    in.loop_wait = 2;
    in.retry_timeout = 5;
    // No committed row may be lost on failover: commits wait for a sync standby.
    in.dynamic_configuration = {{"synchronous_mode", true}};
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
    in.callback_script = patroni_.callback_script();
    in.dcs = EtcdDcs{.hosts = {etcd_host},
                     .protocol = "https",
                     .cacert = etcd_harness.tls().ca_file,
                     .cert = etcd_harness.root() + "/client.crt",
                     .key = etcd_harness.root() + "/client.key",
                     .auth = true};
    testing::MemberEnv m;
    m.pod_name = Pod(k);
    m.pod_namespace = ns();
    m.superuser_password = kSuperuserPassword;
    m.replication_password = "repl-pass-1";
    m.rewind_password = "rewind-pass-1";
    m.etcd_username = "patroni";
    m.etcd_password = "etcd-pass";
    m.extra = {{"QUORUM_CLUSTER_LABEL", "cluster"},
               {"QUORUM_KUBE_API", control_plane().config.server},
               {"QUORUM_KUBE_TOKEN_FILE", token_file},
               {"QUORUM_KUBE_CA_FILE", ca_file}};
    ASSERT_TRUE(patroni_.Start(k, RenderConfig(in), testing::ResolveEnv(in, m)).ok());
  }

  // --- One primary, the others streaming -------------------------------------
  RestClient rest({.timeout = absl::Seconds(3)});
  int primary = -1;
  ASSERT_TRUE(Eventually(
      [&] {
        primary = Primary(rest);
        if (primary < 0) return false;
        absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(primary));
        if (!c.ok() || c->members.size() != kMembers) return false;
        int sync = 0, streaming = 0;
        for (const ClusterMember& m : c->members) {
          sync += m.role == "sync_standby";
          streaming += m.state == "streaming";
        }
        return sync >= 1 && streaming == kMembers - 1;
      },
      absl::Seconds(150)))
      << Logs();
  absl::StatusOr<std::string> dcs_leader = LeaderFromEtcd(**reader, key_prefix, "pg");
  ASSERT_TRUE(dcs_leader.ok()) << dcs_leader.status();
  EXPECT_EQ(*dcs_leader, Pod(primary));

  // The callback labelled every pod from its own Patroni's role.
  EXPECT_TRUE(Eventually(
      [&] {
        for (int k = 0; k < kMembers; ++k) {
          if (testing::RoleLabel(client(), ns(), Pod(k)) !=
              (k == primary ? "primary" : "replica")) {
            return false;
          }
        }
        return true;
      },
      absl::Seconds(30)))
      << Logs();

  // The readiness probe (issue 18.2) against the real members: the running
  // primary and the streaming replicas are ready.
  for (int k = 0; k < kMembers; ++k) {
    EXPECT_TRUE(Eventually([&] { return RunProbe(ports_[2 * k]) == 0; }, absl::Seconds(30)))
        << Pod(k) << (k == primary ? " (primary)" : " (replica)") << "\n"
        << Logs();
  }

  // --- A row written on the primary is read on a replica ---------------------
  ASSERT_TRUE(patroni_
                  .Sql(PgPort(primary), kSuperuserPassword,
                       "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);")
                  .ok());
  const int replica = (primary + 1) % kMembers;
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<std::string> r =
            patroni_.Sql(PgPort(replica), kSuperuserPassword, "SELECT id FROM t");
        return r.ok() && *r == "1";
      },
      absl::Seconds(30)));
  for (int i = 2; i <= 50; ++i) {
    ASSERT_TRUE(patroni_
                    .Sql(PgPort(primary), kSuperuserPassword,
                         absl::StrCat("INSERT INTO t VALUES (", i, ")"))
                    .ok());
  }

  // --- Killing the primary promotes a replica; no committed row is lost ------
  const int old_primary = primary;
  patroni_.Kill(old_primary);
  EXPECT_NE(RunProbe(ports_[2 * old_primary]), 0) << "a killed member is not ready";
  int new_primary = -1;
  ASSERT_TRUE(Eventually(
      [&] {
        new_primary = Primary(rest);
        return new_primary >= 0 && new_primary != old_primary;
      },
      absl::Seconds(90)))
      << Logs();
  absl::StatusOr<std::string> count =
      patroni_.Sql(PgPort(new_primary), kSuperuserPassword, "SELECT count(*) FROM t");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, "50");
  ASSERT_TRUE(
      patroni_.Sql(PgPort(new_primary), kSuperuserPassword, "INSERT INTO t VALUES (51)").ok());

  // The callback flips the new primary's label. The killed member ran no
  // on_stop: the new primary's callback took its label away first (issue
  // 18.3), so two pods never carry role=primary.
  EXPECT_TRUE(
      Eventually([&] { return testing::RoleLabel(client(), ns(), Pod(new_primary)) == "primary"; },
                 absl::Seconds(30)))
      << Logs();
  EXPECT_EQ(testing::RoleLabel(client(), ns(), Pod(old_primary)), std::nullopt) << Logs();

  // --- Without API rights for the callback, role sync keeps labels true ------
  ASSERT_TRUE(client().Delete(testing::kRoleBindingsGvr, ns(), "pg").ok());
  int third = 0;
  while (third == old_primary || third == new_primary) ++third;
  // The third member must be a healthy replica before it can take over.
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<ClusterStatus> c = rest.GetCluster(ApiUrl(new_primary));
        if (!c.ok()) return false;
        for (const ClusterMember& m : c->members) {
          if (m.name == Pod(third)) return m.state == "streaming";
        }
        return false;
      },
      absl::Seconds(60)))
      << Logs();
  // Patroni may refuse while it settles after the failover: retry.
  ASSERT_TRUE(Eventually(
      [&] { return rest.Switchover(ApiUrl(new_primary), Pod(new_primary), Pod(third)).ok(); },
      absl::Seconds(60)))
      << Logs();
  ASSERT_TRUE(Eventually([&] { return Primary(rest) == third; }, absl::Seconds(60))) << Logs();
  // The callback cannot patch any more (403), so the labels are stale.
  EXPECT_EQ(testing::RoleLabel(client(), ns(), Pod(third)), "replica");

  // The operator's loop: read the DCS leader, observe the members, patch.
  // Right after a switchover the old leader passes through unroutable roles
  // (demoted), so poll until the labels settle.
  auto labels_settled = [&] {
    return testing::RoleLabel(client(), ns(), Pod(third)) == "primary" &&
           testing::RoleLabel(client(), ns(), Pod(new_primary)) == "replica" &&
           // Unreachable, and another member is the confirmed primary.
           testing::RoleLabel(client(), ns(), Pod(old_primary)) == std::nullopt;
  };
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<std::string> leader = LeaderFromEtcd(**reader, key_prefix, "pg");
        if (!leader.ok()) return false;
        absl::StatusOr<std::vector<LabelPatch>> applied =
            SyncRoleLabels(client(), ns(), "cluster=pg", rest, ApiUrls(), *leader);
        return applied.ok() && labels_settled();
      },
      absl::Seconds(60)))
      << Logs();
  absl::StatusOr<std::string> rows =
      patroni_.Sql(PgPort(third), kSuperuserPassword, "SELECT count(*) FROM t");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, "51");
}

}  // namespace
}  // namespace quorum::patroni
