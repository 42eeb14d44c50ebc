// The NetworkPolicy a PostgresCluster gets by default, enforced on the real
// node (hack/node.sh runs kube-router's firewall) and tried with real
// connections (issue 34.5): with spec.networkPolicy.postgresFrom admitting
// only app=web pods, a pod of another namespace and a pod of the cluster's
// namespace without that label reach neither PostgreSQL (5432) nor Patroni's
// REST API (8008) of a member, while an app=web pod reaches PostgreSQL (and
// still not the REST API). The members keep streaming to each other, the
// operator on the host keeps the cluster Ready, and a write through the
// primary Service succeeds.
//
// The same for an EtcdCluster (issue 34.2) whose clientFrom admits app=web
// pods, with a PostgresCluster on it (clusterRef): a pod of another namespace
// and a non-member pod of the same namespace reach none of the members' client
// (2379), peer (2380) and metrics (2381) ports; app=web reaches the client port
// only; the database pod reaches the client port without being listed; the
// members keep their quorum, the database stays Ready and takes a write, and
// an EtcdBackup's snapshot Job reads the members.
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kPostgres{"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const kube::GroupVersionResource kNetworkPolicies{"networking.k8s.io", "v1", "networkpolicies"};
// The cluster's own image: bash (its /dev/tcp), timeout and pg_isready.
constexpr char kClientImage[] = "ghcr.io/quorum-dev/postgres:15-patroni4";
constexpr int kPostgresPort = 5432;
constexpr int kPatroniPort = 8008;
constexpr int kPgBackRestPort = 8432;
constexpr int kEtcdClientPort = 2379;
constexpr int kEtcdPeerPort = 2380;
constexpr int kEtcdMetricsPort = 2381;
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kEtcdBackups{"etcd.aenix.io", "v1alpha1", "etcdbackups"};
const kube::GroupVersionResource kPvcs{"", "v1", "persistentvolumeclaims"};
// The snapshot Job's image (the e2e fixture builds it from this build's program).
constexpr char kOperatorImage[] = "ghcr.io/quorum-dev/quorum-operator:0.1.0";

// A pod that only sleeps, for kubectl exec to open connections from. It runs
// as the image's postgres user: libpq (pg_isready) looks the user's name up.
Json ClientPod(const std::string& ns, const std::string& name, const std::string& app) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", app}}}}},
      {"spec",
       {{"terminationGracePeriodSeconds", 0},
        {"securityContext",
         {{"runAsNonRoot", true},
          {"runAsUser", 999},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
        {"containers", Json::array({{{"name", "client"},
                                     {"image", kClientImage},
                                     {"command", Json::array({"sleep", "infinity"})},
                                     {"securityContext",
                                      {{"allowPrivilegeEscalation", false},
                                       {"readOnlyRootFilesystem", true},
                                       {"capabilities", {{"drop", Json::array({"ALL"})}}}}}}})}}}};
}

class NetworkPolicyE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (HasFatalFailure()) return;
    absl::Status s =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) +
                                          "/deploy/crds/postgres.quorum.dev_postgresclusters.yaml");
    ASSERT_TRUE(s.ok()) << s;
    other_ns_ = ns() + "-stranger";
    auto created = client().Create(
        kNamespaces, "",
        {{"apiVersion", "v1"},
         {"kind", "Namespace"},
         {"metadata", {{"name", other_ns_}, {"labels", {{"quorum.dev/test", "true"}}}}}});
    ASSERT_TRUE(created.ok()) << created.status();
  }

  void TearDown() override {
    if (!HasFailure()) {
      (void)client().Delete(kNamespaces, "", other_ns_,
                            {.propagation = kube::PropagationPolicy::kBackground});
    }
    E2ETest::TearDown();
  }

  bool Ready(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    if (!c.ok()) return false;
    for (const Json& cond : c->value("status", Json::object()).value("conditions", Json::array()))
      if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
    return false;
  }

  std::string Primary(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    if (!c.ok()) return "";
    const Json& st = c->value("status", Json::object());
    return st.contains("primary") && st["primary"].is_string() ? st["primary"] : "";
  }

  bool PodRunning(const std::string& ns, const std::string& name) {
    auto pod = client().Get(kPods, ns, name);
    if (!pod.ok()) return false;
    for (const Json& c : (*pod)["status"].value("conditions", Json::array()))
      if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
    return false;
  }

  std::string PodIP(const std::string& name) {
    auto pod = client().Get(kPods, ns(), name);
    return pod.ok() ? (*pod)["status"].value("podIP", "") : "";
  }

  // The three client pods: app=web and app=other here, app=web in the other
  // namespace.
  void StartClientPods() {
    ASSERT_TRUE(client().Create(kPods, ns(), ClientPod(ns(), "web", "web")).ok());
    ASSERT_TRUE(client().Create(kPods, ns(), ClientPod(ns(), "neighbour", "other")).ok());
    ASSERT_TRUE(client().Create(kPods, other_ns_, ClientPod(other_ns_, "stranger", "web")).ok());
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          return PodRunning(ns(), "web") && PodRunning(ns(), "neighbour") &&
                 PodRunning(other_ns_, "stranger");
        },
        absl::Minutes(3)))
        << "the client pods did not run";
  }

  // Whether pod ns/name opens a TCP connection to ip:port within 5 s.
  // Refused (kube-router's REJECT) and no answer both count as no.
  CommandResult Connect(const std::string& ns, const std::string& name, const std::string& ip,
                        int port) {
    return Kubectl(ns, {"exec", name, "--", "timeout", "5", "bash", "-c",
                        "exec 3<>\"/dev/tcp/$0/$1\"", ip, absl::StrCat(port)});
  }

  // The same from the host (this process's user), as the operator connects.
  CommandResult ConnectFromHost(const std::string& ip, int port) {
    return RunCommand(
        {"timeout", "5", "bash", "-c", "exec 3<>\"/dev/tcp/$0/$1\"", ip, absl::StrCat(port)},
        absl::Seconds(10));
  }

  // psql with the superuser's URI against the primary Service, over TLS
  // verified by the Secret's CA.
  CommandResult Sql(const std::string& cluster, const std::string& sql) {
    return Psql(client(), ns(), cluster + "-superuser", absl::StrCat(cluster, ".", ns(), ".svc"),
                sql, absl::Seconds(20));
  }

  std::string other_ns_;
};

TEST_F(NetworkPolicyE2E, StrangersReachNoMemberPortWhileTheAppAndTheMembersDo) {
  OperatorProcess op(ns());
  op.Start();
  const Json pg = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "np"}, {"namespace", ns()}}},
      {"spec",
       {{"postgresVersion", 15},
        {"networkPolicy",
         {{"postgresFrom", Json::array({{{"podSelector", {{"matchLabels", {{"app", "web"}}}}}}})}}},
        // A volume repository: the members' and the repository host's
        // pgBackRest TLS servers (8432) listen too.
        {"backups",
         {{"pgbackrest",
           {{"repos",
             Json::array({{{"name", "repo1"},
                           {"volume",
                            {{"volumeClaimSpec",
                              {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}})}}}}},
        {"instances", Json::array({{{"name", "main"},
                                    {"replicas", 2},
                                    {"dataVolumeClaimSpec",
                                     {{"accessModes", Json::array({"ReadWriteOnce"})},
                                      {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  auto created = client().Create(kPostgres, ns(), pg);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("np") && !Primary("np").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster did not become Ready with a primary";
  ASSERT_TRUE(client().Get(kNetworkPolicies, ns(), "np").ok()) << "no NetworkPolicy np";

  StartClientPods();
  if (HasFatalFailure()) return;

  const std::string primary = Primary("np");
  const std::string replica = primary == "np-main-0" ? "np-main-1" : "np-main-0";
  for (const std::string& member : {primary, replica}) {
    SCOPED_TRACE(member);
    const std::string ip = PodIP(member);
    ASSERT_FALSE(ip.empty());
    // Both ports listen: the host (the node, always admitted) reaches them.
    EXPECT_EQ(ConnectFromHost(ip, kPostgresPort).exit_code, 0);
    EXPECT_EQ(ConnectFromHost(ip, kPatroniPort).exit_code, 0);
    // The application's pod: PostgreSQL answers it once the firewall knows
    // its address.
    CommandResult ready;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          ready = Kubectl(ns(), {"exec", "web", "--", "pg_isready", "-h", ip, "-p",
                                 absl::StrCat(kPostgresPort), "-t", "5"});
          return ready.exit_code == 0;
        },
        absl::Minutes(1)))
        << "app=web did not reach PostgreSQL: " << ready.output;
    // Everyone else, and the REST API for the application too: no connection.
    for (const auto& [pod_ns, pod] : {std::pair{ns(), std::string("neighbour")},
                                      std::pair{other_ns_, std::string("stranger")}}) {
      for (int port : {kPostgresPort, kPatroniPort}) {
        CommandResult c = Connect(pod_ns, pod, ip, port);
        EXPECT_NE(c.exit_code, 0) << pod_ns << "/" << pod << " connected to " << ip << ":" << port;
      }
    }
    CommandResult rest = Connect(ns(), "web", ip, kPatroniPort);
    EXPECT_NE(rest.exit_code, 0) << "app=web connected to Patroni's REST API on " << ip;
  }
  // pgBackRest's TLS servers, on the members and on the repository host:
  // listening (the host reaches them), refused to everyone else, the
  // application included.
  std::vector<std::string> backup_servers = {primary, replica, "np-repo-host-0"};
  ASSERT_TRUE(
      testenv::Eventually([&] { return !PodIP("np-repo-host-0").empty(); }, absl::Minutes(3)));
  for (const std::string& server : backup_servers) {
    SCOPED_TRACE(server);
    const std::string ip = PodIP(server);
    EXPECT_TRUE(testenv::Eventually(
        [&] { return ConnectFromHost(ip, kPgBackRestPort).exit_code == 0; }, absl::Minutes(2)))
        << "pgBackRest's server on " << server << " does not listen";
    for (const auto& [pod_ns, pod] :
         {std::pair{ns(), std::string("neighbour")}, std::pair{ns(), std::string("web")},
          std::pair{other_ns_, std::string("stranger")}}) {
      CommandResult c = Connect(pod_ns, pod, ip, kPgBackRestPort);
      EXPECT_NE(c.exit_code, 0) << pod_ns << "/" << pod << " connected to " << ip << ":"
                                << kPgBackRestPort;
    }
  }
  // The stranger's network works otherwise: it reaches the node's DNS server.
  EXPECT_EQ(Connect(other_ns_, "stranger", "10.245.0.1", 53).exit_code, 0)
      << "the stranger pod cannot open any connection: the refusals above prove nothing";

  // The cluster is unharmed: the replica streams from the primary (member to
  // member), the operator on the host keeps it Ready, and a write through the
  // primary Service succeeds.
  CommandResult w;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        w = Sql("np",
                "create table if not exists t(v int); insert into t values (1);"
                " select count(*) from pg_stat_replication where state = 'streaming';");
        return w.exit_code == 0 && absl::StripAsciiWhitespace(w.output) == "1";
      },
      absl::Minutes(2)))
      << w.output;
  EXPECT_TRUE(Ready("np"));
}

TEST_F(NetworkPolicyE2E, StrangersReachNoEtcdPortWhileMembersPostgresAndBackupsDo) {
  for (const char* crd :
       {"etcd.aenix.io_etcdbackups.yaml", "postgres.quorum.dev_postgresclusters.yaml"}) {
    absl::Status s =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd);
    ASSERT_TRUE(s.ok()) << s;
  }
  OperatorProcess op(ns());
  op.Start({absl::StrCat("QUORUM_OPERATOR_IMAGE=", kOperatorImage)});
  const Json etcd = {
      {"apiVersion", "etcd.aenix.io/v1alpha1"},
      {"kind", "EtcdCluster"},
      {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
      {"spec",
       {{"replicas", 3},
        {"storage", {{"emptyDir", Json::object()}}},
        {"networkPolicy",
         {{"clientFrom",
           Json::array({{{"podSelector", {{"matchLabels", {{"app", "web"}}}}}}})}}}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  const Json pg = {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "db"}, {"namespace", ns()}}},
      {"spec",
       {{"postgresVersion", 15},
        {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}}},
        {"instances", Json::array({{{"name", "main"},
                                    {"replicas", 1},
                                    {"dataVolumeClaimSpec",
                                     {{"accessModes", Json::array({"ReadWriteOnce"})},
                                      {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  StartClientPods();
  if (HasFatalFailure()) return;
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdClusterReady("dcs"); }, absl::Minutes(5)))
      << "the EtcdCluster did not become Ready";
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("db") && !Primary("db").empty(); }, absl::Minutes(6)))
      << "the PostgresCluster on the EtcdCluster did not become Ready with a primary";
  ASSERT_TRUE(client().Get(kNetworkPolicies, ns(), "dcs").ok()) << "no NetworkPolicy dcs";
  const std::string database = Primary("db");

  for (const std::string member : {"dcs-0", "dcs-1", "dcs-2"}) {
    SCOPED_TRACE(member);
    const std::string ip = PodIP(member);
    ASSERT_FALSE(ip.empty());
    // Every port listens: the host (the node, always admitted) reaches them.
    for (int port : {kEtcdClientPort, kEtcdPeerPort, kEtcdMetricsPort}) {
      EXPECT_EQ(ConnectFromHost(ip, port).exit_code, 0) << port;
    }
    // The listed application and the database pod (not listed: admitted as
    // a PostgresCluster that references the cluster) reach the client port.
    CommandResult web;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          web = Connect(ns(), "web", ip, kEtcdClientPort);
          return web.exit_code == 0;
        },
        absl::Minutes(1)))
        << "app=web did not reach the client port: " << web.output;
    CommandResult db =
        Kubectl(ns(), {"exec", database, "-c", "database", "--", "timeout", "5", "bash", "-c",
                       "exec 3<>\"/dev/tcp/$0/$1\"", ip, absl::StrCat(kEtcdClientPort)});
    EXPECT_EQ(db.exit_code, 0) << "the database pod did not reach the client port: " << db.output;
    // Nobody else reaches any port; app=web not the peer and metrics ports.
    for (const auto& [pod_ns, pod] : {std::pair{ns(), std::string("neighbour")},
                                      std::pair{other_ns_, std::string("stranger")}}) {
      for (int port : {kEtcdClientPort, kEtcdPeerPort, kEtcdMetricsPort}) {
        CommandResult c = Connect(pod_ns, pod, ip, port);
        EXPECT_NE(c.exit_code, 0) << pod_ns << "/" << pod << " connected to " << ip << ":" << port;
      }
    }
    for (int port : {kEtcdPeerPort, kEtcdMetricsPort}) {
      EXPECT_NE(Connect(ns(), "web", ip, port).exit_code, 0)
          << "app=web connected to " << ip << ":" << port;
    }
  }
  EXPECT_EQ(Connect(other_ns_, "stranger", "10.245.0.1", 53).exit_code, 0)
      << "the stranger pod cannot open any connection: the refusals above prove nothing";

  // The members keep their quorum (a write needs two of three, over the peer
  // port), the database stays Ready and takes a write (Patroni renews its
  // leader key in etcd from the pod), and a snapshot Job reads the members.
  CommandResult put = Etcdctl(ns(), "dcs", {"put", "np/check", "1"});
  EXPECT_EQ(put.exit_code, 0) << put.output;
  EXPECT_EQ(MemberList(ns(), "dcs").size(), 3u);
  CommandResult w;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        w = Sql("db",
                "create table if not exists t(v int); insert into t values (1);"
                " select count(*) from t;");
        return w.exit_code == 0;
      },
      absl::Minutes(2)))
      << w.output;
  EXPECT_TRUE(Ready("db"));
  const Json claim = {{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", {{"name", "backups"}, {"namespace", ns()}}},
                      {"spec",
                       {{"accessModes", Json::array({"ReadWriteOnce"})},
                        {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  ASSERT_TRUE(client().Create(kPvcs, ns(), claim).ok());
  const Json backup = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                       {"kind", "EtcdBackup"},
                       {"metadata", {{"name", "snap"}, {"namespace", ns()}}},
                       {"spec",
                        {{"clusterRef", {{"name", "dcs"}}},
                         {"destination", {{"pvc", {{"claimName", "backups"}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdBackups, ns(), backup).ok());
  Json status;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto b = client().Get(kEtcdBackups, ns(), "snap");
        if (!b.ok()) return false;
        status = b->value("status", Json::object());
        return status.value("phase", "") == "Complete" || status.value("phase", "") == "Failed";
      },
      absl::Minutes(5)));
  EXPECT_EQ(status.value("phase", ""), "Complete") << status.dump();
  EXPECT_TRUE(EtcdClusterReady("dcs"));
}

}  // namespace
}  // namespace quorum::e2e
