#include "src/controllers/etcdcluster/restore.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "src/controllers/etcdcluster/builders.h"

namespace quorum::etcdcluster {
namespace {

EtcdCluster Cluster(const char* source) {
  Json obj = {{"metadata", {{"name", "restored"}, {"namespace", "db"}, {"uid", "0123456789"}}},
              {"spec", {{"replicas", 3}}}};
  if (*source != '\0') obj["spec"]["bootstrap"] = {{"restore", {{"source", Json::parse(source)}}}};
  absl::StatusOr<EtcdCluster> c = api::ParseEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : EtcdCluster{};
}

std::string Joined(const Json& array) {
  std::string out;
  for (const Json& a : array) out += a.get<std::string>() + " ";
  return out;
}

TEST(RestoreTest, NoSourceNoInitContainers) {
  const Json sts = BuildStatefulSet(Cluster(""), 3, "operator:test");
  EXPECT_FALSE(sts["spec"]["template"]["spec"].contains("initContainers"));
}

TEST(RestoreTest, S3SourceFetchesWithKeysFromTheSecretThenRestoresOnce) {
  const EtcdCluster c = Cluster(R"({"s3": {"endpoint": "https://s3.local", "bucket": "b",
      "key": "db/main/nightly.db", "forcePathStyle": true,
      "credentialsSecretRef": {"name": "s3-creds"}}})");
  const Json pod = BuildStatefulSet(c, 1, "operator:test")["spec"]["template"]["spec"];
  ASSERT_EQ(pod["initContainers"].size(), 2u);
  const Json& fetch = pod["initContainers"][0];
  EXPECT_EQ(fetch["image"], "operator:test");
  const std::string args = Joined(fetch["args"]);
  EXPECT_TRUE(absl::StrContains(args, "fetch-snapshot --out=/restore/snapshot.db")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--skip-if-exists=/var/run/etcd/default.etcd")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--skip-unless-env=ETCD_INITIAL_CLUSTER_STATE=new")) << args;
  EXPECT_TRUE(absl::StrContains(args, "--s3-key=db/main/nightly.db")) << args;
  for (const Json& e : fetch["env"]) {
    EXPECT_EQ(e["valueFrom"]["secretKeyRef"]["name"], "s3-creds");
  }
  const Json& restore = pod["initContainers"][1];
  EXPECT_EQ(restore["image"], kDefaultImage);
  const std::string script = restore["command"][2];
  EXPECT_TRUE(absl::StrContains(script, "etcdutl snapshot restore")) << script;
  EXPECT_TRUE(absl::StrContains(script, "ETCD_INITIAL_CLUSTER_STATE\" != new")) << script;
  EXPECT_EQ(restore["env"][2]["value"],
            "http://$(POD_NAME).restored-headless.$(POD_NAMESPACE).svc:2380");
  EXPECT_EQ(restore["envFrom"][0]["configMapRef"]["name"], "restored-cluster-state");
  bool has_restore_volume = false;
  for (const Json& v : pod["volumes"]) has_restore_volume |= v["name"] == "restore";
  EXPECT_TRUE(has_restore_volume);
}

TEST(RestoreTest, PvcSourceMountsTheClaimReadOnly) {
  const EtcdCluster c =
      Cluster(R"({"pvc": {"claimName": "backups", "subPath": "etcd/main-nightly.db"}})");
  const RestorePodParts parts = BuildRestorePodParts(c, "operator:test");
  ASSERT_EQ(parts.init_containers.size(), 2u);
  EXPECT_TRUE(absl::StrContains(Joined(parts.init_containers[0]["args"]),
                                "--file=/restore-source/etcd/main-nightly.db"));
  EXPECT_EQ(parts.volumes[1]["persistentVolumeClaim"]["claimName"], "backups");
  EXPECT_EQ(parts.volumes[1]["persistentVolumeClaim"]["readOnly"], true);
}

// aenix v0.4.5 reads snapshot.db at the claim's root when subPath is empty.
TEST(RestoreTest, PvcSourceWithoutSubPathReadsSnapshotDbAtTheClaimsRoot) {
  const RestorePodParts parts =
      BuildRestorePodParts(Cluster(R"({"pvc": {"claimName": "backups"}})"), "operator:test");
  ASSERT_EQ(parts.init_containers.size(), 2u);
  const std::string args = Joined(parts.init_containers[0]["args"]);
  EXPECT_TRUE(absl::StrContains(args, "--file=/restore-source/snapshot.db ")) << args;
}

}  // namespace
}  // namespace quorum::etcdcluster
