#include "src/controllers/etcdbackup/job.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::etcdbackup {
namespace {

api::EtcdBackup Backup(const char* destination) {
  nlohmann::json obj = {
      {"metadata", {{"name", "nightly"}, {"namespace", "db"}, {"uid", "u1"}, {"generation", 1}}},
      {"spec",
       {{"clusterRef", {{"name", "main"}}}, {"destination", nlohmann::json::parse(destination)}}}};
  absl::StatusOr<api::EtcdBackup> b = api::ParseEtcdBackup(obj);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *b : api::EtcdBackup{};
}

api::EtcdCluster Cluster(bool secure) {
  nlohmann::json obj = {{"metadata", {{"name", "main"}, {"namespace", "db"}, {"uid", "c1"}}},
                        {"spec", {{"replicas", 3}}}};
  if (secure) {
    obj["spec"]["security"] = {{"enableAuth", true},
                               {"tls",
                                {{"peerTrustedCASecret", "peer-ca"},
                                 {"peerSecret", "peer"},
                                 {"serverTrustedCASecret", "server-ca"},
                                 {"serverSecret", "server"},
                                 {"clientTrustedCASecret", "client-ca"},
                                 {"clientSecret", "client"}}}};
  }
  absl::StatusOr<api::EtcdCluster> c = api::ParseEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : api::EtcdCluster{};
}

std::string Args(const Json& job) {
  std::string out;
  for (const Json& a : job["spec"]["template"]["spec"]["containers"][0]["args"]) {
    out += a.get<std::string>() + " ";
  }
  return out;
}

TEST(SnapshotJobBuilderTest, S3JobTakesKeysFromTheSecretNeverFromArgs) {
  const Json job = BuildSnapshotJob(
      Backup(R"({"s3": {"endpoint": "https://s3.local", "bucket": "b", "forcePathStyle": true,
                 "credentialsSecretRef": {"name": "s3-creds"}}})"),
      Cluster(false), "quorum-operator:test");
  EXPECT_EQ(job["metadata"]["name"], "nightly-snapshot");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "EtcdBackup");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  const Json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  const std::string args = Args(job);
  EXPECT_TRUE(absl::StrContains(args, "--endpoints=http://main-0.main-headless.db.svc:2379,"))
      << args;
  EXPECT_TRUE(absl::StrContains(args, "--s3-key=db/main/nightly.db ")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--s3-force-path-style")) << args;
  EXPECT_FALSE(absl::StrContains(args, "AWS")) << args;
  const Json& env = pod["containers"][0]["env"];
  ASSERT_EQ(env.size(), 2u);
  for (const Json& e : env) {
    EXPECT_EQ(e["valueFrom"]["secretKeyRef"]["name"], "s3-creds");
    EXPECT_FALSE(e.contains("value"));
  }
}

TEST(SnapshotJobBuilderTest, SecureClusterMountsTlsAndPassesAuthByEnv) {
  const Json job = BuildSnapshotJob(
      Backup(R"({"pvc": {"claimName": "backups", "subPath": "etcd"}})"), Cluster(true), "img");
  const std::string args = Args(job);
  EXPECT_TRUE(absl::StrContains(args, "https://main-0.")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--ca-file=")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--cert-file=")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--dir=/backup/etcd --name=main-nightly.db")) << args;
  const Json& pod = job["spec"]["template"]["spec"];
  std::vector<std::string> volumes;
  for (const Json& v : pod["volumes"]) volumes.push_back(v["name"]);
  EXPECT_EQ(volumes, (std::vector<std::string>{"work", "etcd-ca", "etcd-tls", "backup"}));
  EXPECT_EQ(pod["volumes"][3]["persistentVolumeClaim"]["claimName"], "backups");
  std::vector<std::string> env;
  for (const Json& e : pod["containers"][0]["env"]) {
    env.push_back(e["name"]);
    EXPECT_EQ(e["valueFrom"]["secretKeyRef"]["name"], "main-root-auth");
  }
  EXPECT_EQ(env, (std::vector<std::string>{"ETCD_USERNAME", "ETCD_PASSWORD"}));
}

TEST(SnapshotJobBuilderTest, ItsPodCarriesTheLabelTheClustersNetworkPolicyAdmits) {
  const Json job = BuildSnapshotJob(Backup(R"({"pvc": {"claimName": "backups"}})"), Cluster(false),
                                    "quorum-operator:test");
  // src/controllers/etcdcluster/network_policy.h admits it to the client port.
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"]["etcd.aenix.io/snapshot-client"], "main");
}

TEST(SnapshotJobBuilderTest, LongNamesStayWithin63Characters) {
  api::EtcdBackup b = Backup(R"({"pvc": {"claimName": "c"}})");
  b.metadata.name = std::string(60, 'a');
  EXPECT_LE(JobName(b).size(), 63u);
  api::EtcdBackup other = b;
  other.metadata.name = std::string(59, 'a') + "b";
  EXPECT_NE(JobName(b), JobName(other));
}

}  // namespace
}  // namespace quorum::etcdbackup
