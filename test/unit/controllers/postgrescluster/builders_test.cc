// Golden tests for the PostgresCluster builders: every object (the Patroni
// configuration inside the ConfigMap included) for the kubernetes DCS, the
// etcd DCS with TLS and auth, and the etcd DCS through a clusterRef; plus
// the differences that matter spelled out as assertions (RBAC per DCS and
// podAPIAccess, Service shapes, DCS resolution and its Secret checks).
// QUORUM_UPDATE_GOLDEN=1 rewrites the golden files; review the diff.
#include "src/controllers/postgrescluster/builders.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "absl/algorithm/container.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/access.h"
#include "src/controllers/postgrescluster/leader.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/patroni/readiness.h"
#include "test/testmain/paths.h"
#include "test/unit/golden.h"

namespace quorum::postgrescluster {
namespace {

const std::string kTestdata =
    std::string(QUORUM_SOURCE_DIR) + "/test/unit/controllers/postgrescluster/testdata/";

Json ClusterJson(Json patroni) {
  Json c = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", "hippo"}, {"namespace", "db"}, {"uid", "9f8e-7d6c"}}},
            {"spec",
             {{"postgresVersion", 15},
              {"instances",
               {{{"name", "main"},
                 {"replicas", 3},
                 {"dataVolumeClaimSpec",
                  {{"accessModes", {"ReadWriteOnce"}},
                   {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
              {"users", {{{"name", "app"}, {"databases", {"app"}}}}},
              {"patroni", std::move(patroni)}}}};
  return c;
}

PostgresCluster Parse(const Json& obj) {
  absl::StatusOr<PostgresCluster> c = api::ParsePostgresCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : PostgresCluster{};
}

PostgresCluster Cluster(Json patroni) { return Parse(ClusterJson(std::move(patroni))); }

Json Secret(const std::string& name, std::map<std::string, std::string> data) {
  Json d = Json::object();
  for (const auto& [k, v] : data) d[k] = absl::Base64Escape(v);
  return {{"metadata", {{"name", name}, {"namespace", "db"}}}, {"data", d}};
}

// A namespace of objects DCS resolution can look up.
struct World {
  std::map<std::string, Json> objects;  // "Kind/name"
  Lookup lookup() const {
    return [this](const std::string& kind, const std::string& name) -> std::shared_ptr<const Json> {
      auto it = objects.find(kind + "/" + name);
      return it == objects.end() ? nullptr : std::make_shared<const Json>(it->second);
    };
  }
};

World TlsWorld() {
  World w;
  w.objects["Secret/etcd-tls"] =
      Secret("etcd-tls", {{"ca.crt", "CA"}, {"tls.crt", "CERT"}, {"tls.key", "KEY"}});
  w.objects["Secret/etcd-auth"] = Secret("etcd-auth", {{"username", "u"}, {"password", "p"}});
  w.objects["Secret/dcs-client"] =
      Secret("dcs-client", {{"ca.crt", "CA"}, {"tls.crt", "CERT"}, {"tls.key", "KEY"}});
  w.objects["Secret/dcs-root-auth"] =
      Secret("dcs-root-auth", {{"username", "root"}, {"password", "x"}});
  w.objects["Secret/dcs-client-ca"] =
      Secret("dcs-client-ca", {{"ca.crt", "CCA"}, {"tls.crt", "CCA"}, {"tls.key", "CCA-KEY"}});
  w.objects["Secret/dcs-server-ca"] = Secret("dcs-server-ca", {{"ca.crt", "SCA"}});
  w.objects["EtcdCluster/dcs"] = {{"metadata", {{"name", "dcs"}, {"namespace", "db"}}},
                                  {"spec",
                                   {{"security",
                                     {{"enableAuth", true},
                                      {"tls",
                                       {{"serverTrustedCASecret", "dcs-server-ca"},
                                        {"serverSecret", "dcs-server"},
                                        {"clientTrustedCASecret", "dcs-client-ca"},
                                        {"clientSecret", "dcs-client"}}}}}}},
                                  {"status",
                                   {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
                                    {"clientEndpoint", "https://dcs.db.svc:2379"},
                                    {"clientSecretName", "dcs-client"},
                                    {"authSecretName", "dcs-root-auth"}}}};
  return w;
}

Json BuildAll(const PostgresCluster& cluster, const World& world) {
  const DcsResolution dcs = ResolveDcs(cluster, world.lookup());
  EXPECT_TRUE(dcs.ready) << dcs.message;
  const patroni::ConfigInput input = BuildPatroniInput(cluster, dcs);
  Json out = {{"configMap", BuildConfigMap(cluster, input)},
              {"statefulSet", BuildStatefulSet(cluster, cluster.spec.instances[0], input, dcs)},
              {"services", BuildServices(cluster)},
              {"rbac", BuildRbac(cluster)}};
  if (auto pdb = BuildPodDisruptionBudget(cluster)) out["podDisruptionBudget"] = *pdb;
  if (auto policy = BuildNetworkPolicy(cluster, {.ns = "quorum-system"})) {
    out["networkPolicy"] = *policy;
  }
  return out;
}

const Json kEtcdEndpoints = {
    {"dcs",
     {{"type", "etcd"},
      {"etcd",
       {{"endpoints", {"https://etcd-0.example:2379", "https://etcd-1.example:2379"}},
        {"tlsSecret", "etcd-tls"},
        {"authSecret", "etcd-auth"}}}}}};
const Json kEtcdClusterRef = {
    {"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}};

TEST(PostgresBuildersGoldenTest, KubernetesDcs) {
  testing::ExpectGoldenJson(kTestdata + "kubernetes_dcs.json",
                            BuildAll(Cluster(Json::object()), {}));
}

// A cluster whose first reconcile recorded ConfigMaps (every new one).
PostgresCluster ConfigMapsCluster() {
  Json j = ClusterJson(Json::object());
  j["status"]["patroni"]["dcsObjects"] = "ConfigMaps";
  return Parse(j);
}

TEST(PostgresBuildersGoldenTest, KubernetesDcsOnConfigMaps) {
  testing::ExpectGoldenJson(kTestdata + "kubernetes_dcs_configmaps.json",
                            BuildAll(ConfigMapsCluster(), {}));
}

TEST(PostgresBuildersGoldenTest, EtcdDcsWithTlsAndAuth) {
  testing::ExpectGoldenJson(kTestdata + "etcd_tls_auth.json",
                            BuildAll(Cluster(kEtcdEndpoints), TlsWorld()));
}

TEST(PostgresBuildersGoldenTest, EtcdDcsThroughClusterRef) {
  testing::ExpectGoldenJson(kTestdata + "etcd_cluster_ref.json",
                            BuildAll(Cluster(kEtcdClusterRef), TlsWorld()));
}

// Backups to two S3 repositories with keys and a CA from Secrets.
TEST(PostgresBuildersGoldenTest, PgBackRestBackups) {
  Json obj = ClusterJson(kEtcdClusterRef);
  obj["spec"]["backups"] = {
      {"pgbackrest",
       {{"repos",
         {{{"name", "repo1"},
           {"s3",
            {{"bucket", "backups"},
             {"endpoint", "s3.eu-west-1.amazonaws.com"},
             {"region", "eu-west-1"}}}},
          {{"name", "repo2"},
           {"s3", {{"bucket", "local"}, {"endpoint", "minio.backup:9000"}, {"region", "x"}}}}}},
        {"configuration", {{{"secret", {{"name", "s3-keys"}}}}, {{"secret", {{"name", "s3-ca"}}}}}},
        {"global",
         {{"repo1-retention-full", "7"},
          {"repo2-s3-uri-style", "path"},
          {"repo2-storage-ca-file", "/etc/pgbackrest/conf.d/ca.crt"}}}}}};
  testing::ExpectGoldenJson(kTestdata + "pgbackrest.json", BuildAll(Parse(obj), TlsWorld()));
}

// A volume repository beside an S3 one: the repository host (StatefulSet,
// Service, NetworkPolicy), the members reaching it with the client
// certificate, and the backup Jobs' file in which the volume is local.
TEST(PostgresBuildersGoldenTest, PgBackRestVolumeRepository) {
  Json obj = ClusterJson(kEtcdClusterRef);
  obj["spec"]["backups"] = {{"pgbackrest",
                             {{"repos",
                               {{{"name", "repo1"},
                                 {"s3",
                                  {{"bucket", "backups"},
                                   {"endpoint", "s3.eu-west-1.amazonaws.com"},
                                   {"region", "eu-west-1"}}}},
                                {{"name", "repo3"},
                                 {"volume",
                                  {{"volumeClaimSpec",
                                    {{"accessModes", {"ReadWriteOnce"}},
                                     {"resources", {{"requests", {{"storage", "20Gi"}}}}}}}}}}}},
                              {"global", {{"repo3-retention-full", "2"}}}}}};
  const PostgresCluster cluster = Parse(obj);
  Json all = BuildAll(cluster, TlsWorld());
  std::optional<Json> host = BuildRepoHostStatefulSet(cluster);
  std::optional<Json> service = BuildRepoHostService(cluster);
  std::optional<Json> policy = BuildRepoHostNetworkPolicy(cluster);
  ASSERT_TRUE(host.has_value() && service.has_value() && policy.has_value());
  all["repoHost"] = {{"statefulSet", *host}, {"service", *service}, {"networkPolicy", *policy}};
  testing::ExpectGoldenJson(kTestdata + "pgbackrest-volume.json", all);

  // The host's pod is no member: no cluster label, so no member Service,
  // PDB or observation selects it.
  const Json& labels = (*host)["spec"]["template"]["metadata"]["labels"];
  EXPECT_FALSE(labels.contains(std::string(api::kClusterLabel))) << labels.dump();
  EXPECT_EQ((*host)["spec"]["volumeClaimTemplates"][0]["metadata"]["name"], "repo3");
  EXPECT_EQ((*host)["spec"]["volumeClaimTemplates"].size(), 1u);
  EXPECT_EQ(RepoClaimName(cluster, "repo3"), "repo3-hippo-repo-host-0");
  const std::string members = all["configMap"]["data"]["pgbackrest.conf"];
  EXPECT_TRUE(absl::StrContains(members, "repo3-host=hippo-repo-host.db.svc\n")) << members;
  const std::string local = all["configMap"]["data"]["pgbackrest-repo.conf"];
  EXPECT_TRUE(absl::StrContains(local, "repo3-type=posix\n")) << local;
  EXPECT_TRUE(absl::StrContains(local, "repo1-type=s3\n")) << local;
  // The members' certificate names the host.
  const std::vector<std::string> dns = ServerCertDnsNames(cluster);
  EXPECT_NE(std::find(dns.begin(), dns.end(), "hippo-repo-host.db.svc"), dns.end());
  // Without a volume repository there is no host.
  const PostgresCluster s3_only = Cluster(kEtcdClusterRef);
  EXPECT_FALSE(BuildRepoHostStatefulSet(s3_only).has_value());
  EXPECT_FALSE(BuildRepoHostService(s3_only).has_value());
  EXPECT_FALSE(BuildRepoHostNetworkPolicy(s3_only).has_value());
}

TEST(PostgresBuildersTest, ADataSourceBootstrapsWithPgBackRestRestore) {
  Json obj = ClusterJson(kEtcdClusterRef);
  obj["spec"]["dataSource"] = {
      {"pgbackrest",
       {{"clusterName", "old"},
        {"repo",
         {{"name", "repo2"},
          {"s3", {{"bucket", "b"}, {"endpoint", "s3.local:9000"}, {"region", "r"}}}}},
        {"global", {{"repo2-s3-uri-style", "path"}}},
        {"target", {{"time", "2026-12-04T11:15:00.25+01:00"}}}}}};
  const PostgresCluster cluster = Parse(obj);
  EXPECT_EQ(PgBackRestRestoreCommand(cluster),
            "pgbackrest --config=/etc/patroni/pgbackrest-restore.conf "
            "--config-include-path=/etc/pgbackrest/restore.d --stanza=db --repo=2 "
            "--log-level-console=info --type=time \"--target=2026-12-04 10:15:00.25+00\" "
            "--target-action=promote restore");
  const std::optional<patroni::PgBackRestInput> src = BuildPgBackRestRestoreInput(cluster);
  ASSERT_TRUE(src.has_value());
  ASSERT_EQ(src->repos.size(), 1u);
  EXPECT_EQ(src->repos[0].index, 2);
  EXPECT_EQ(src->repos[0].path, "/pgbackrest/db/old/repo2");
  EXPECT_FALSE(src->tls_server.has_value());
  // Patroni bootstraps with it, keeping the restore's recovery settings.
  const DcsResolution dcs = ResolveDcs(cluster, TlsWorld().lookup());
  const Json config = patroni::BuildConfig(BuildPatroniInput(cluster, dcs));
  EXPECT_EQ(config["bootstrap"]["method"], "pgbackrest");
  EXPECT_EQ(config["bootstrap"]["pgbackrest"]["keep_existing_recovery_conf"], true);
  EXPECT_EQ(config["bootstrap"]["pgbackrest"]["no_params"], true);
  // The source's Secrets folder exists even without Secrets (an empty one).
  bool restore_dir = false;
  const Json all = BuildAll(cluster, TlsWorld());
  for (const Json& v : all["statefulSet"]["spec"]["template"]["spec"]["volumes"]) {
    restore_dir = restore_dir || (v["name"] == "pgbackrest-restore" && v.contains("emptyDir"));
  }
  EXPECT_TRUE(restore_dir);
  EXPECT_TRUE(all["configMap"]["data"].contains("pgbackrest-restore.conf"));
  // Without a target: recover to the end of the archive.
  obj["spec"]["dataSource"]["pgbackrest"].erase("target");
  obj["spec"]["dataSource"]["pgbackrest"]["set"] = "20261204-101500F";
  EXPECT_TRUE(absl::EndsWith(PgBackRestRestoreCommand(Parse(obj)),
                             "--repo=2 --log-level-console=info --set=20261204-101500F restore"));
}

TEST(PostgresBuildersTest, AnInPlaceRestoreStopsTheMembersThenBootstrapsFromTheClustersRepo) {
  Json obj = ClusterJson(kEtcdClusterRef);
  obj["spec"]["backups"] = {
      {"pgbackrest",
       {{"repos",
         {{{"name", "repo1"},
           {"s3", {{"bucket", "a"}, {"endpoint", "s3.local:9000"}, {"region", "r"}}}},
          {{"name", "repo3"},
           {"s3", {{"bucket", "b"}, {"endpoint", "s3.local:9000"}, {"region", "r"}}}}}},
        {"restore",
         {{"enabled", true}, {"repoName", "repo3"}, {"target", {{"lsn", "0/5000100"}}}}}}}};
  // No restore under way: the usual bootstrap, the spec's replicas.
  EXPECT_EQ(PgBackRestRestoreCommand(Parse(obj)), "");
  EXPECT_EQ(BuildAll(Parse(obj), TlsWorld())["statefulSet"]["spec"]["replicas"], 3);
  // Stopping: no member; the restore command is ready for the bootstrap.
  obj["status"] = {
      {"backups",
       {{"pgbackrest", {{"restore", {{"id", "r1"}, {"phase", "Stopping"}, {"startedAt", "x"}}}}}}}};
  PostgresCluster stopping = Parse(obj);
  EXPECT_TRUE(RestoreStopsMembers(stopping));
  EXPECT_EQ(InPlaceRestoreRepo(stopping), 3);
  EXPECT_EQ(BuildAll(stopping, TlsWorld())["statefulSet"]["spec"]["replicas"], 0);
  EXPECT_EQ(PgBackRestRestoreCommand(stopping),
            "pgbackrest --config=/etc/patroni/pgbackrest.conf "
            "--config-include-path=/etc/pgbackrest/conf.d --stanza=db --repo=3 "
            "--log-level-console=info --type=lsn \"--target=0/5000100\" "
            "--target-action=promote restore");
  // A cluster created from another's backup restores from its own repository.
  Json from_source = obj;
  from_source["spec"]["dataSource"] = Json::parse(R"({"pgbackrest": {"clusterName": "old",
      "repo": {"name": "repo1", "s3": {"bucket": "old", "endpoint": "s3.local", "region": "r"}}}})");
  EXPECT_EQ(PgBackRestRestoreCommand(Parse(from_source)), PgBackRestRestoreCommand(stopping));
  // Restoring: the members come back and bootstrap with it.
  obj["status"]["backups"]["pgbackrest"]["restore"]["phase"] = "Restoring";
  const PostgresCluster restoring = Parse(obj);
  EXPECT_FALSE(RestoreStopsMembers(restoring));
  EXPECT_EQ(BuildAll(restoring, TlsWorld())["statefulSet"]["spec"]["replicas"], 3);
  const DcsResolution dcs = ResolveDcs(restoring, TlsWorld().lookup());
  const Json config = patroni::BuildConfig(BuildPatroniInput(restoring, dcs));
  EXPECT_EQ(config["bootstrap"]["method"], "pgbackrest");
  // Restoring, but the spec no longer names a restore (disabled, or gone):
  // the members stay stopped rather than start empty on the wiped volumes.
  Json disabled = obj;
  disabled["spec"]["backups"]["pgbackrest"]["restore"]["enabled"] = false;
  Json gone = obj;
  gone["spec"]["backups"]["pgbackrest"].erase("restore");
  for (const Json& edited : {disabled, gone}) {
    const PostgresCluster blocked = Parse(edited);
    EXPECT_TRUE(RestoreStopsMembers(blocked));
    EXPECT_EQ(InPlaceRestoreRepo(blocked), 0);
    EXPECT_EQ(PgBackRestRestoreCommand(blocked), "");
  }
  // Done: the usual bootstrap again (used only if the DCS is ever emptied).
  obj["status"]["backups"]["pgbackrest"]["restore"]["phase"] = "Succeeded";
  EXPECT_EQ(PgBackRestRestoreCommand(Parse(obj)), "");
  EXPECT_FALSE(
      patroni::BuildConfig(BuildPatroniInput(Parse(obj), dcs))["bootstrap"].contains("method"));
}

std::set<std::string> Names(const std::vector<Json>& objects) {
  std::set<std::string> out;
  for (const Json& o : objects)
    out.insert(o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>());
  return out;
}

TEST(PostgresBuildersTest, ServicesPerDcs) {
  const std::vector<Json> k8s = BuildServices(Cluster(Json::object()));
  EXPECT_EQ(Names(k8s), (std::set<std::string>{"Service/hippo", "Service/hippo-config",
                                               "Service/hippo-pods", "Service/hippo-replicas"}));
  EXPECT_FALSE(k8s[0]["spec"].contains("selector")) << "Patroni keeps the primary's Endpoints";

  const std::vector<Json> etcd = BuildServices(Cluster(kEtcdEndpoints));
  EXPECT_EQ(Names(etcd), (std::set<std::string>{"Service/hippo", "Service/hippo-pods",
                                                "Service/hippo-replicas"}))
      << "no leader-lease or config Services with the etcd DCS";
  EXPECT_EQ(etcd[0]["spec"]["selector"]["role"], "primary");
  EXPECT_EQ(etcd[1]["spec"]["selector"]["role"], "replica");

  Json lb = ClusterJson(kEtcdEndpoints);
  lb["spec"]["service"] = {{"type", "LoadBalancer"}};
  EXPECT_EQ(BuildServices(Parse(lb))[0]["spec"]["type"], "LoadBalancer");
  Json lb_k8s = ClusterJson(Json::object());
  lb_k8s["spec"]["service"] = {{"type", "NodePort"}};
  EXPECT_EQ(BuildServices(Parse(lb_k8s))[0]["spec"]["type"], "NodePort");
}

// Issue 36.5: on ConfigMaps Patroni writes no addresses, so the primary
// Service selects the pod labelled primary, as with etcd; the config Service
// (kept only so Kubernetes leaves Patroni's config Endpoints alone) is gone.
TEST(PostgresBuildersTest, ConfigMapsClustersSelectThePrimaryByItsRoleLabel) {
  const std::vector<Json> services = BuildServices(ConfigMapsCluster());
  EXPECT_EQ(Names(services), (std::set<std::string>{"Service/hippo", "Service/hippo-pods",
                                                    "Service/hippo-replicas"}));
  EXPECT_EQ(services[0]["spec"]["selector"],
            (Json{{"postgres.quorum.dev/cluster", "hippo"}, {"role", "primary"}}));
  EXPECT_EQ(services[1]["spec"]["selector"]["role"], "replica");
  EXPECT_FALSE(absl::c_linear_search(ServerCertDnsNames(ConfigMapsCluster()), "hippo-config"));
  EXPECT_TRUE(absl::c_linear_search(ServerCertDnsNames(Cluster(Json::object())), "hippo-config"))
      << "clusters on Endpoints keep their certificate";
}

TEST(PostgresBuildersTest, ConfigMapsClustersTellPatroniSo) {
  const PostgresCluster cluster = ConfigMapsCluster();
  const DcsResolution dcs = ResolveDcs(cluster, World{}.lookup());
  ASSERT_TRUE(dcs.ready);
  const auto& k8s = std::get<patroni::KubernetesDcs>(dcs.dcs);
  EXPECT_FALSE(k8s.use_endpoints);
  EXPECT_EQ(k8s.port_name, "") << "no addresses to publish";
  EXPECT_TRUE(absl::StrContains(dcs.message, "ConfigMap hippo-leader")) << dcs.message;
  const DcsResolution old = ResolveDcs(Cluster(Json::object()), World{}.lookup());
  EXPECT_TRUE(std::get<patroni::KubernetesDcs>(old.dcs).use_endpoints)
      << "a cluster with nothing recorded stays on Endpoints";
  EXPECT_TRUE(absl::StrContains(old.message, "Endpoints hippo")) << old.message;
}

bool GrantsOn(const std::vector<Json>& rbac, const std::string& resource) {
  for (const Json& o : rbac) {
    if (o["kind"] != "Role") continue;
    for (const Json& rule : o["rules"]) {
      for (const Json& r : rule["resources"]) {
        if (r == resource) return true;
      }
    }
  }
  return false;
}

TEST(PostgresBuildersTest, RbacPerDcsAndPodApiAccess) {
  const std::vector<Json> k8s = BuildRbac(Cluster(Json::object()));
  EXPECT_TRUE(GrantsOn(k8s, "endpoints"));
  EXPECT_TRUE(GrantsOn(k8s, "services")) << "Patroni makes the config Service when missing";
  EXPECT_FALSE(GrantsOn(k8s, "configmaps"));
  EXPECT_TRUE(GrantsOn(k8s, "pods"));
  // Least privilege on ConfigMaps: the kind in use only, no Services.
  const std::vector<Json> cms = BuildRbac(ConfigMapsCluster());
  EXPECT_TRUE(GrantsOn(cms, "configmaps"));
  EXPECT_FALSE(GrantsOn(cms, "endpoints"));
  EXPECT_FALSE(GrantsOn(cms, "services"));
  EXPECT_TRUE(GrantsOn(cms, "pods")) << "Patroni labels its pod with its role";

  // Issue 15.4: with etcd the pods get API rights only when the spec asks.
  Json open_json = ClusterJson(kEtcdEndpoints);
  open_json["spec"]["patroni"]["podAPIAccess"] = true;
  const std::vector<Json> etcd = BuildRbac(Parse(open_json));
  EXPECT_EQ(Names(etcd),
            (std::set<std::string>{"ServiceAccount/hippo-instance", "Role/hippo-instance",
                                   "RoleBinding/hippo-instance"}));
  EXPECT_FALSE(GrantsOn(etcd, "endpoints")) << "no Endpoints rights with the etcd DCS";
  EXPECT_FALSE(GrantsOn(etcd, "configmaps"));
  EXPECT_TRUE(GrantsOn(etcd, "pods")) << "the role callback patches its pod";

  const PostgresCluster closed = Cluster(kEtcdEndpoints);  // podAPIAccess defaults to false
  EXPECT_FALSE(closed.spec.patroni.pod_api_access);
  EXPECT_TRUE(BuildRbac(closed).empty());
  const World w = TlsWorld();
  const DcsResolution dcs = ResolveDcs(closed, w.lookup());
  const Json sts =
      BuildStatefulSet(closed, closed.spec.instances[0], BuildPatroniInput(closed, dcs), dcs);
  EXPECT_EQ(sts["spec"]["template"]["spec"]["automountServiceAccountToken"], false);
  EXPECT_EQ(sts["spec"]["template"]["spec"]["serviceAccountName"], "default");
  EXPECT_FALSE(absl::StrContains(
      BuildConfigMap(closed, BuildPatroniInput(closed, dcs))["data"]["patroni.yaml"]
          .get<std::string>(),
      "on_role_change"))
      << "without API access the operator alone keeps role labels";
}

// Issue 18.2: readiness from the member's writability, not Patroni's
// /readiness alone (200 for a leader still restarting read-only); and the
// callback may list pods to take the old primary's label away (18.3).
TEST(PostgresBuildersTest, ReadinessFollowsWritabilityAndTheCallbackMayClearOldPrimaries) {
  const World w = TlsWorld();
  Json with_api = ClusterJson(kEtcdEndpoints);
  with_api["spec"]["patroni"]["podAPIAccess"] = true;
  const PostgresCluster cluster = Parse(with_api);
  const DcsResolution dcs = ResolveDcs(cluster, w.lookup());
  const Json sts =
      BuildStatefulSet(cluster, cluster.spec.instances[0], BuildPatroniInput(cluster, dcs), dcs);
  const Json& probe = sts["spec"]["template"]["spec"]["containers"][0]["readinessProbe"];
  EXPECT_FALSE(probe.contains("httpGet")) << probe.dump();
  EXPECT_EQ(probe["exec"]["command"],
            Json(patroni::ReadinessProbeCommand(kPatroniPort, true, kDataMount)));
  bool lists_pods = false;
  for (const Json& o : BuildRbac(cluster)) {
    if (o["kind"] != "Role") continue;
    for (const Json& rule : o["rules"]) {
      for (const Json& verb : rule["verbs"])
        lists_pods |= rule["resources"][0] == "pods" && verb == "list";
    }
  }
  EXPECT_TRUE(lists_pods);
}

TEST(PostgresBuildersTest, NoSecretValueInTheConfigMap) {
  const World w = TlsWorld();
  const PostgresCluster cluster = Cluster(kEtcdEndpoints);
  const DcsResolution dcs = ResolveDcs(cluster, w.lookup());
  const std::string yaml =
      BuildConfigMap(cluster, BuildPatroniInput(cluster, dcs))["data"]["patroni.yaml"];
  EXPECT_FALSE(absl::StrContains(yaml, "password:")) << yaml;
  EXPECT_FALSE(absl::StrContains(yaml, "username: u")) << yaml;
  EXPECT_TRUE(absl::StrContains(yaml, "etcd3:")) << yaml;
  EXPECT_FALSE(absl::StrContains(yaml, "kubernetes:")) << yaml;
  const Json env =
      BuildStatefulSet(cluster, cluster.spec.instances[0], BuildPatroniInput(cluster, dcs),
                       dcs)["spec"]["template"]["spec"]["containers"][0]["env"];
  bool user = false, password = false;
  for (const Json& e : env) {
    if (e["name"] == "PATRONI_ETCD3_USERNAME")
      user = e["valueFrom"]["secretKeyRef"] == Json{{"name", "etcd-auth"}, {"key", "username"}};
    if (e["name"] == "PATRONI_ETCD3_PASSWORD")
      password = e["valueFrom"]["secretKeyRef"] == Json{{"name", "etcd-auth"}, {"key", "password"}};
  }
  EXPECT_TRUE(user && password) << env.dump();
}

TEST(DcsResolutionTest, ChecksSecretsAndTheEtcdCluster) {
  World w = TlsWorld();
  w.objects.erase("Secret/etcd-tls");
  DcsResolution r = ResolveDcs(Cluster(kEtcdEndpoints), w.lookup());
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.reason, "SecretNotFound");
  EXPECT_TRUE(absl::StrContains(r.message, "spec.patroni.dcs.etcd.tlsSecret")) << r.message;

  w = TlsWorld();
  w.objects["Secret/etcd-auth"] = Secret("etcd-auth", {{"username", "u"}});
  r = ResolveDcs(Cluster(kEtcdEndpoints), w.lookup());
  EXPECT_EQ(r.reason, "SecretIncomplete");
  EXPECT_TRUE(absl::StrContains(r.message, "lacks password")) << r.message;
  EXPECT_FALSE(absl::StrContains(r.message, "\"u\"")) << "never Secret data";

  w = TlsWorld();
  w.objects["EtcdCluster/dcs"]["status"]["conditions"][0]["status"] = "False";
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_EQ(r.reason, "EtcdClusterNotReady");
  w.objects.erase("EtcdCluster/dcs");
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_EQ(r.reason, "EtcdClusterNotFound");

  r = ResolveDcs(Cluster(kEtcdClusterRef), TlsWorld().lookup());
  ASSERT_TRUE(r.ready) << r.message;
  // Issue 15.3: the pods' own user and certificate; the operator keeps its own.
  EXPECT_EQ(r.tls_secret, "hippo-etcd-client");
  EXPECT_EQ(r.auth_secret, "hippo-etcd-user");
  EXPECT_EQ(r.operator_tls_secret, "dcs-client");
  EXPECT_EQ(r.operator_auth_secret, "dcs-root-auth");
  ASSERT_TRUE(r.pod_access.has_value());
  EXPECT_EQ(r.pod_access->user, "quorum-pg.db.hippo");
  EXPECT_EQ(r.pod_access->key_prefix, "/quorum/db/hippo/");
  EXPECT_EQ(r.pod_access->client_ca_secret, "dcs-client-ca");
  EXPECT_EQ(r.pod_access->server_ca_secret, "dcs-server-ca");
  const auto& etcd = std::get<patroni::EtcdDcs>(r.dcs);
  EXPECT_EQ(etcd.hosts, std::vector<std::string>{"dcs.db.svc:2379"});
  EXPECT_EQ(etcd.protocol, "https");
}

// Issue 15.3: without the client CA's key the pods could only get the
// operator's certificate: the cluster waits instead, naming the Secret.
TEST(DcsResolutionTest, ClusterRefWithAuthNeedsTheClientCasKey) {
  World w = TlsWorld();
  w.objects["Secret/dcs-client-ca"] = Secret("dcs-client-ca", {{"ca.crt", "CCA"}});
  DcsResolution r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.reason, "EtcdClientCertUnavailable");
  EXPECT_TRUE(absl::StrContains(r.message, "dcs-client-ca")) << r.message;
  EXPECT_TRUE(r.operator_access) << "the finalizer can still clean up";
  ASSERT_TRUE(r.pod_access.has_value());

  // Issued already: the CA Secrets are not read (nor needed) on each reconcile.
  w.objects["Secret/hippo-etcd-client"] =
      Secret("hippo-etcd-client", {{"ca.crt", "SCA"}, {"tls.crt", "C"}, {"tls.key", "K"}});
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_TRUE(r.ready) << r.message;
  w.objects.erase("Secret/hippo-etcd-client");

  w.objects["Secret/dcs-client-ca"] = Secret("dcs-client-ca", {{"ca.crt", "CCA"}, {"ca.key", "K"}});
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_TRUE(r.ready) << r.message;

  // Without auth nothing changes: the pods use what the EtcdCluster publishes.
  w = TlsWorld();
  w.objects["EtcdCluster/dcs"]["status"].erase("authSecretName");
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  EXPECT_FALSE(r.ready) << "auth asked for but not on yet: the pods would start without their user";
  EXPECT_TRUE(absl::StrContains(r.message, "turn on the authentication")) << r.message;
  w.objects["EtcdCluster/dcs"]["spec"]["security"]["enableAuth"] = false;
  r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
  ASSERT_TRUE(r.ready) << r.message;
  EXPECT_FALSE(r.pod_access.has_value());
  EXPECT_EQ(r.tls_secret, "dcs-client");
  EXPECT_EQ(r.auth_secret, "");
}

// Issue 14.7: the operator reads the DCS leader key with the DCS's own
// endpoints, TLS and credentials.
TEST(DcsResolutionTest, TheOperatorsEtcdClientFollowsTheResolvedDcs) {
  const DcsResolution r = ResolveDcs(Cluster(kEtcdClusterRef), TlsWorld().lookup());
  ASSERT_TRUE(r.ready) << r.message;
  auto config = EtcdClientConfigFor(
      r, [](const std::string& secret, const char* key) { return secret + "/" + key; },
      absl::Seconds(2));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->endpoints, std::vector<std::string>{"https://dcs.db.svc:2379"});
  EXPECT_EQ(config->ca_pem, "dcs-client/ca.crt");
  EXPECT_EQ(config->cert_pem, "dcs-client/tls.crt");
  EXPECT_EQ(config->key_pem, "dcs-client/tls.key");
  EXPECT_EQ(config->username, "dcs-root-auth/username");
  EXPECT_EQ(config->password, "dcs-root-auth/password");
  EXPECT_EQ(config->timeout, absl::Seconds(2));

  const DcsResolution k8s = ResolveDcs(Cluster(Json::object()), TlsWorld().lookup());
  EXPECT_FALSE(EtcdClientConfigFor(k8s, nullptr, absl::Seconds(2)).ok());
}

// Issue 14.7: with the kubernetes DCS the leader comes from Patroni's leader
// Endpoints annotation (the informer's copy).
TEST(DcsResolutionTest, KubernetesDcsLeaderFromTheLeaderEndpoints) {
  EXPECT_EQ(LeaderFromObject(nullptr), std::nullopt) << "not known yet";
  const Json bare = {{"metadata", {{"name", "hippo"}}}};
  EXPECT_EQ(LeaderFromObject(&bare), std::optional<std::string>(""));
  const Json cleared = {{"metadata", {{"name", "hippo"}, {"annotations", {{"leader", ""}}}}}};
  EXPECT_EQ(LeaderFromObject(&cleared), std::optional<std::string>(""));
  const Json led = {
      {"metadata",
       {{"name", "hippo"},
        {"annotations", {{"leader", "hippo-main-1"}, {"renewTime", "2026-12-01T18:00:00Z"}}}}}};
  EXPECT_EQ(LeaderFromObject(&led), std::optional<std::string>("hippo-main-1"));
}

TEST(PostgresBuildersTest, DynamicConfigurationMergesButTheSpecTimingsWin) {
  Json obj = ClusterJson(Json::object());
  obj["spec"]["patroni"]["dynamicConfiguration"] = {
      {"ttl", 99}, {"postgresql", {{"parameters", {{"max_connections", "200"}}}}}};
  const PostgresCluster cluster = Parse(obj);
  const patroni::ConfigInput in = BuildPatroniInput(cluster, ResolveDcs(cluster, World().lookup()));
  const std::string yaml = patroni::RenderConfig(in);
  EXPECT_TRUE(absl::StrContains(yaml, "ttl: 30")) << yaml;
  EXPECT_FALSE(absl::StrContains(yaml, "99")) << yaml;
  EXPECT_TRUE(absl::StrContains(yaml, "max_connections: \"200\"")) << yaml;
}

// A key Quorum owns, stored before admission refused it, never reaches
// Patroni: Quorum's pg_hba holds, and one Quorum does not set is removed.
TEST(PostgresBuildersTest, OwnedDynamicKeysNeverReachPatroni) {
  Json obj = ClusterJson(Json::object());
  obj["spec"]["patroni"]["dynamicConfiguration"] = Json::parse(
      R"({"postgresql": {"pg_hba": ["host all all 0.0.0.0/0 trust"], "use_slots": false,
                         "parameters": {"ssl": "off", "archive_command": "/bin/true",
                                        "work_mem": "8MB"}},
          "standby_cluster": {"host": "elsewhere"}})");
  const PostgresCluster cluster = Parse(obj);
  const DcsResolution dcs = ResolveDcs(cluster, World().lookup());
  const std::string yaml = patroni::RenderConfig(BuildPatroniInput(cluster, dcs));
  for (const char* absent : {"trust", "/bin/true", "elsewhere", "ssl: \"off\""}) {
    EXPECT_FALSE(absl::StrContains(yaml, absent)) << absent << " in\n" << yaml;
  }
  EXPECT_TRUE(absl::StrContains(yaml, "work_mem: 8MB")) << yaml;
  EXPECT_TRUE(absl::StrContains(yaml, "use_slots: true")) << yaml;

  const Json desired = DesiredDynamicConfig(cluster, dcs);
  EXPECT_EQ(desired["postgresql"]["pg_hba"], Json(PgHba(cluster)));
  EXPECT_TRUE(desired["postgresql"]["parameters"]["ssl"].is_null());
  EXPECT_TRUE(desired["postgresql"]["parameters"]["archive_command"].is_null());
  EXPECT_TRUE(desired.contains("standby_cluster") && desired["standby_cluster"].is_null());
  EXPECT_EQ(desired["postgresql"]["use_slots"], true);
  EXPECT_EQ(desired["postgresql"]["parameters"]["work_mem"], "8MB");
}

TEST(PostgresBuildersTest, KeyNamespaceKeepsNamespacesApart) {
  Json a = ClusterJson(kEtcdEndpoints), b = ClusterJson(kEtcdEndpoints);
  b["metadata"]["namespace"] = "other";
  EXPECT_NE(KeyNamespace(Parse(a)), KeyNamespace(Parse(b)));
  a["spec"]["patroni"]["dcs"]["etcd"]["namespace"] = "/mine/";
  EXPECT_EQ(KeyNamespace(Parse(a)), "/mine/");
}

TEST(PostgresDcsTest, ClusterRefNeedsAQuorumNotEveryMember) {
  World w = TlsWorld();
  Json& etcd = w.objects["EtcdCluster/dcs"];
  auto member = [](const std::string& name, bool healthy, bool learner = false) {
    return Json{{"name", name}, {"healthy", healthy}, {"isLearner", learner}};
  };
  etcd["status"]["conditions"] = {{{"type", "Initialized"}, {"status", "True"}},
                                  {{"type", "Ready"}, {"status", "False"}}};
  struct Case {
    const char* name;
    Json members;
    bool ready;
  };
  const std::vector<Case> cases = {
      {"2 of 3 healthy", {member("a", true), member("b", true), member("c", false)}, true},
      {"1 of 3 healthy", {member("a", true), member("b", false), member("c", false)}, false},
      {"2 of 3 voters, a healthy learner does not count",
       {member("a", true), member("b", false), member("c", false), member("d", true, true)},
       false},
      {"no members known", Json::array(), false},
  };
  for (const Case& tc : cases) {
    etcd["status"]["members"] = tc.members;
    const DcsResolution r = ResolveDcs(Cluster(kEtcdClusterRef), w.lookup());
    EXPECT_EQ(r.ready, tc.ready) << tc.name << ": " << r.message;
    if (!tc.ready) {
      EXPECT_EQ(r.reason, "EtcdClusterNotReady") << tc.name;
    }
  }
  etcd["status"]["conditions"] = {{{"type", "Initialized"}, {"status", "False"}}};
  etcd["status"]["members"] = {member("a", true), member("b", true), member("c", true)};
  EXPECT_FALSE(ResolveDcs(Cluster(kEtcdClusterRef), w.lookup()).ready)
      << "a cluster still forming is not a DCS";
}

}  // namespace
}  // namespace quorum::postgrescluster
