// Golden tests for the EtcdCluster builders. Each case builds every object
// for one manifest and compares with testdata/<case>.json. To review a change
// on purpose: QUORUM_UPDATE_GOLDEN=1 runs rewrite the files; read the diff.
#include "src/controllers/etcdcluster/builders.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "api/etcdcluster_defaults.h"
#include "src/controllers/etcdcluster/pod_merge.h"
#include "test/examples/examples.h"
#include "test/testmain/paths.h"
#include "test/unit/golden.h"

namespace quorum::etcdcluster {
namespace {

const std::string kTestdata =
    std::string(QUORUM_SOURCE_DIR) + "/test/unit/controllers/etcdcluster/testdata/";

// The cluster with `spec`, defaulted as the webhook (and ParseEtcdCluster)
// would, then decoded; not validated, so tests may pass values admission
// refuses.
EtcdCluster Cluster(Json spec) {
  Json obj = {
      {"apiVersion", "etcd.aenix.io/v1alpha1"},
      {"kind", "EtcdCluster"},
      {"metadata", {{"name", "test"}, {"namespace", "default"}, {"uid", "0b9a1c2d-3e4f-5a6b"}}},
      {"spec", std::move(spec)}};
  api::DefaultEtcdCluster(obj);
  absl::StatusOr<EtcdCluster> c = api::DecodeEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : EtcdCluster{};
}

// API.md's example manifest.
EtcdCluster DesignExample() { return Cluster(examples::EtcdClusterDesignExample()["spec"]); }

Json BuildAll(const EtcdCluster& cluster, int replicas) {
  BootstrapState state{
      .state = "existing",
      .members = {{"test-0", PeerUrl(cluster, 0)}, {"test-1", PeerUrl(cluster, 1)}}};
  Json out = {{"headlessService", BuildHeadlessService(cluster)},
              {"clientService", BuildClientService(cluster)},
              {"stateConfigMap", BuildStateConfigMap(cluster, state)},
              {"statefulSet", BuildStatefulSet(cluster, replicas)}};
  if (auto pdb = BuildPodDisruptionBudget(cluster, replicas)) out["podDisruptionBudget"] = *pdb;
  return out;
}

void ExpectGolden(const std::string& name, const Json& got) {
  testing::ExpectGoldenJson(kTestdata + name + ".json", got);
}

TEST(BuildersGoldenTest, DesignExample) {
  ExpectGolden("design_example", BuildAll(DesignExample(), 3));
}

TEST(BuildersGoldenTest, EmptyDir) {
  ExpectGolden(
      "emptydir",
      BuildAll(Cluster({{"replicas", 3}, {"storage", {{"emptyDir", Json::object()}}}}), 3));
}

TEST(BuildersGoldenTest, DefaultPvc) {
  ExpectGolden("default_pvc", BuildAll(Cluster({{"replicas", 1}}), 1));
}

TEST(BuildersGoldenTest, FullTls) {
  ExpectGolden("tls", BuildAll(Cluster({{"replicas", 3},
                                        {"security",
                                         {{"enableAuth", true},
                                          {"tls",
                                           {{"peerTrustedCASecret", "peer-ca"},
                                            {"peerSecret", "peer-tls"},
                                            {"serverTrustedCASecret", "server-ca"},
                                            {"serverSecret", "server-tls"},
                                            {"clientTrustedCASecret", "client-ca"},
                                            {"clientSecret", "client-tls"}}}}}}),
                               3));
}

TEST(BuildersGoldenTest, ScaledToZero) {
  ExpectGolden("scaled_to_zero",
               BuildAll(Cluster({{"replicas", 0},
                                 {"podDisruptionBudgetTemplate", {{"spec", Json::object()}}}}),
                        0));
}

bool HasArg(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(BuildEtcdArgsTest, AutoCompactionIsOnByDefault) {
  const std::vector<std::string> args = BuildEtcdArgs(Cluster({}));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-mode=periodic"));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-retention=1h"));
}

TEST(BuildEtcdArgsTest, AutoCompactionOptionsOverrideTheDefaults) {
  std::vector<std::string> args =
      BuildEtcdArgs(Cluster({{"options", {{"auto-compaction-mode", "revision"}}}}));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-mode=revision"));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-retention=10000"));
  EXPECT_FALSE(HasArg(args, "--auto-compaction-mode=periodic"));
  args = BuildEtcdArgs(Cluster({{"options", {{"auto-compaction-retention", "30m"}}}}));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-mode=periodic"));
  EXPECT_TRUE(HasArg(args, "--auto-compaction-retention=30m"));
  EXPECT_FALSE(HasArg(args, "--auto-compaction-retention=1h"));
}

TEST(BuildEtcdArgsTest, OptionsAreSortedFlagsAndEmptyValuesAreBare) {
  std::vector<std::string> args =
      BuildEtcdArgs(Cluster({{"options",
                              {{"snapshot-count", "10000"},
                               {"enable-pprof", ""},
                               {"auto-compaction-mode", "periodic"}}}}));
  std::vector<std::string> tail(args.end() - 3, args.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--auto-compaction-mode=periodic", "--enable-pprof",
                                            "--snapshot-count=10000"}));
  EXPECT_EQ(args[0], "--name=$(POD_NAME)");
  for (const std::string& a : args) {
    EXPECT_EQ(a.find("https"), std::string::npos) << "no TLS asked, no https: " << a;
  }
}

TEST(BuildEtcdArgsTest, TlsTurnsOnSchemesAndFileFlags) {
  std::vector<std::string> args = BuildEtcdArgs(Cluster({{"security",
                                                          {{"tls",
                                                            {{"peerSecret", "p"},
                                                             {"peerTrustedCASecret", "pc"},
                                                             {"serverSecret", "s"},
                                                             {"clientTrustedCASecret", "cc"},
                                                             {"clientSecret", "c"}}}}}}));
  auto has = [&](const std::string& flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  EXPECT_TRUE(has("--peer-client-cert-auth"));
  EXPECT_TRUE(has("--client-cert-auth"));
  EXPECT_TRUE(has("--cert-file=/etc/etcd/pki/server/tls.crt"));
  EXPECT_TRUE(has("--listen-peer-urls=https://0.0.0.0:2380"));
  EXPECT_TRUE(has("--listen-client-urls=https://0.0.0.0:2379"));
}

TEST(NamesTest, UrlsFollowTheTlsMode) {
  EtcdCluster plain = Cluster(Json::object());
  EXPECT_EQ(PeerUrl(plain, 2), "http://test-2.test-headless.default.svc:2380");
  EXPECT_EQ(ServiceClientUrl(plain), "http://test.default.svc:2379");
  EtcdCluster tls = Cluster({{"security", {{"tls", {{"peerSecret", "p"}, {"serverSecret", "s"}}}}},
                             {"serviceTemplate", {{"metadata", {{"name", "etcd-client"}}}}}});
  EXPECT_EQ(PeerUrl(tls, 0), "https://test-0.test-headless.default.svc:2380");
  EXPECT_EQ(ServiceClientUrl(tls), "https://etcd-client.default.svc:2379");
  EXPECT_EQ(DesiredReplicas(Cluster(Json::object())), 3);
  EXPECT_EQ(DesiredReplicas(Cluster({{"replicas", -4}})), 0);
}

TEST(PodMergeTest, ContainersMergeByNameAndKeepOurEnvAndMounts) {
  Json ours = {
      {"containers",
       Json::array({{{"name", "etcd"},
                     {"image", "ours"},
                     {"env", Json::array({{{"name", "POD_NAME"}, {"value", "x"}}})},
                     {"volumeMounts", Json::array({{{"name", "data"}, {"mountPath", "/d"}}})},
                     {"resources", {{"requests", {{"cpu", "1"}}}}}}})},
      {"securityContext", {{"runAsNonRoot", true}}}};
  Json user = {
      {"containers",
       Json::array({{{"name", "etcd"},
                     {"image", "theirs"},
                     {"env", Json::array({{{"name", "GOMAXPROCS"}, {"value", "2"}}})},
                     {"volumeMounts", Json::array({{{"name", "extra"}, {"mountPath", "/e"}}})},
                     {"resources", {{"limits", {{"memory", "1Gi"}}}}}},
                    {{"name", "sidecar"}, {"image", "busybox"}}})},
      {"nodeSelector", {{"disk", "ssd"}}},
      {"tolerations", Json::array({{{"key", "dedicated"}}})}};
  Json merged = MergePodSpec(ours, user);
  ASSERT_EQ(merged["containers"].size(), 2u);
  const Json& etcd = merged["containers"][0];
  EXPECT_EQ(etcd["image"], "theirs");
  EXPECT_EQ(etcd["env"].size(), 2u) << "user env is added to ours, not replacing it";
  EXPECT_EQ(etcd["volumeMounts"].size(), 2u);
  EXPECT_EQ(etcd["resources"],
            (Json{{"requests", {{"cpu", "1"}}}, {"limits", {{"memory", "1Gi"}}}}));
  EXPECT_EQ(merged["containers"][1]["name"], "sidecar");
  EXPECT_EQ(merged["nodeSelector"]["disk"], "ssd");
  EXPECT_EQ(merged["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(MergePodSpec(ours, Json()), ours);
}

TEST(PodMergeTest, UserVolumeWithOurNameReplacesOurs) {
  Json ours = {{"volumes", Json::array({{{"name", "data"}, {"emptyDir", Json::object()}}})}};
  Json user = {
      {"volumes", Json::array({{{"name", "data"}, {"emptyDir", {{"medium", "Memory"}}}}})}};
  EXPECT_EQ(MergePodSpec(ours, user)["volumes"][0]["emptyDir"]["medium"], "Memory");
}

TEST(PdbTest, EmptyTemplateMeansQuorumAndAbsentMeansNone) {
  EXPECT_FALSE(BuildPodDisruptionBudget(Cluster(Json::object()), 3).has_value());
  EtcdCluster empty = Cluster({{"podDisruptionBudgetTemplate", {{"spec", Json::object()}}}});
  EXPECT_EQ((*BuildPodDisruptionBudget(empty, 3))["spec"]["minAvailable"], 2);
  EXPECT_EQ((*BuildPodDisruptionBudget(empty, 5))["spec"]["minAvailable"], 3);
  EtcdCluster max =
      Cluster({{"podDisruptionBudgetTemplate", {{"spec", {{"maxUnavailable", "34%"}}}}}});
  const Json pdb = *BuildPodDisruptionBudget(max, 3);
  EXPECT_EQ(pdb["spec"]["maxUnavailable"], "34%");
  EXPECT_FALSE(pdb["spec"].contains("minAvailable"));
}

// aenix admits counts written as strings; policy/v1 takes only integers and
// percentages, so the budget gets the integer.
TEST(PdbTest, ACountWrittenAsAStringBecomesAnInteger) {
  for (const char* count : {"0", "2"}) {
    EtcdCluster c =
        Cluster({{"podDisruptionBudgetTemplate", {{"spec", {{"maxUnavailable", count}}}}}});
    EXPECT_EQ((*BuildPodDisruptionBudget(c, 3))["spec"]["maxUnavailable"], std::stoi(count));
    c = Cluster({{"podDisruptionBudgetTemplate", {{"spec", {{"minAvailable", count}}}}}});
    EXPECT_EQ((*BuildPodDisruptionBudget(c, 3))["spec"]["minAvailable"], std::stoi(count));
  }
}

TEST(BuildersTest, EveryObjectIsOwnedByTheCluster) {
  const Json all = BuildAll(DesignExample(), 3);
  for (auto it = all.begin(); it != all.end(); ++it) {
    const Json& ref = (*it)["metadata"]["ownerReferences"][0];
    EXPECT_EQ(ref["kind"], "EtcdCluster") << it.key();
    EXPECT_EQ(ref["controller"], true) << it.key();
    EXPECT_EQ((*it)["metadata"]["namespace"], "default") << it.key();
  }
}

}  // namespace
}  // namespace quorum::etcdcluster
