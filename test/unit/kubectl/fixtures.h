// Realistic objects for the kubectl tests: an EtcdCluster of three members
// (one learner catching up, one pod not ready), a PostgresCluster of two
// instance sets on the etcd DCS, their pods and backups, as the API server
// would return them, decoded with the api/ decoders the plugin uses.
#ifndef QUORUM_TEST_UNIT_KUBECTL_FIXTURES_H_
#define QUORUM_TEST_UNIT_KUBECTL_FIXTURES_H_

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "api/etcdbackup_types.h"
#include "api/etcdcluster_types.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/kubectl/pod_info.h"

namespace quorum::kubectl::fixtures {

using Json = nlohmann::json;

// The time every test renders at: ages are measured from here.
inline absl::Time Now() {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, "2026-12-06T16:00:00Z", &t, &err)) << err;
  return t;
}

inline Json Condition(const std::string& type, const std::string& status, const std::string& reason,
                      const std::string& message, const std::string& time) {
  return {{"type", type},       {"status", status},           {"reason", reason},
          {"message", message}, {"lastTransitionTime", time}, {"observedGeneration", 1}};
}

inline Json EtcdClusterJson() {
  Json member = {{"name", "etcd-a-0"},
                 {"id", "8e9e05c52164694d"},
                 {"peerURL", "https://etcd-a-0.etcd-a-headless.demo.svc:2380"},
                 {"clientURL", "https://etcd-a-0.etcd-a-headless.demo.svc:2379"},
                 {"isLeader", true},
                 {"healthy", true},
                 {"version", "3.6.16"}};
  Json m1 = member, m2 = member;
  m1["name"] = "etcd-a-1";
  m1["id"] = "91bc3c398fb3c146";
  m1["isLeader"] = false;
  m2["name"] = "etcd-a-2";
  m2["id"] = "fd422379fda50e48";
  m2["isLeader"] = false;
  m2["isLearner"] = true;
  m2["healthy"] = false;
  m2["version"] = "";
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", "etcd-a"}, {"namespace", "demo"}, {"generation", 2}}},
          {"spec",
           {{"replicas", 3}, {"security", {{"enableAuth", true}, {"tls", {{"managed", true}}}}}}},
          {"status",
           {{"observedGeneration", 2},
            {"readyReplicas", 2},
            {"replicas", 3},
            {"leader", "etcd-a-0"},
            {"clientEndpoint", "https://etcd-a.demo.svc:2379"},
            {"lowestVersion", "3.6.16"},
            {"members", {member, m1, m2}},
            {"conditions",
             {Condition("Initialized", "True", "InitialMembersJoined", "", "2026-12-06T12:00:00Z"),
              Condition("Ready", "False", "MemberNotReady", "etcd-a-2 is not healthy",
                        "2026-12-06T15:55:00Z")}}}}};
}

inline Json PodJson(const std::string& name, const Json& labels, bool ready, int restarts = 0) {
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"nodeName", "node-1"}}},
          {"status",
           {{"phase", "Running"},
            {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}},
            {"containerStatuses", {{{"name", "c"}, {"restartCount", restarts}}}}}}};
}

inline std::vector<PodInfo> EtcdPods() {
  const Json labels = {{"app.kubernetes.io/name", "etcd"},
                       {"app.kubernetes.io/instance", "etcd-a"}};
  return ParsePodList({{"items",
                        {PodJson("etcd-a-2", labels, false, 3), PodJson("etcd-a-0", labels, true),
                         PodJson("etcd-a-1", labels, true)}}});
}

inline Json EtcdBackupJson(const std::string& name, const std::string& cluster,
                           const std::string& created, const std::string& phase,
                           const std::string& taken_at) {
  Json b = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
            {"kind", "EtcdBackup"},
            {"metadata", {{"name", name}, {"namespace", "demo"}, {"creationTimestamp", created}}},
            {"spec",
             {{"clusterRef", {{"name", cluster}}},
              {"destination", {{"pvc", {{"claimName", "backups"}, {"subPath", name + ".db"}}}}}}},
            {"status", {{"phase", phase}}}};
  if (!taken_at.empty()) {
    b["status"]["snapshot"] = {{"uri", "pvc://backups/" + name + ".db"},
                               {"revision", 42},
                               {"size", 2097152},
                               {"takenAt", taken_at}};
  }
  return b;
}

inline std::vector<api::EtcdBackup> EtcdBackups() {
  std::vector<api::EtcdBackup> out;
  for (const Json& j : {EtcdBackupJson("nightly-1", "etcd-a", "2026-12-05T02:00:00Z", "Complete",
                                       "2026-12-05T02:00:09Z"),
                        EtcdBackupJson("nightly-2", "etcd-a", "2026-12-06T02:00:00Z", "Failed", ""),
                        EtcdBackupJson("other", "etcd-b", "2026-12-06T03:00:00Z", "Complete",
                                       "2026-12-06T03:00:05Z")}) {
    absl::StatusOr<api::EtcdBackup> b = api::ParseEtcdBackup(j);
    EXPECT_TRUE(b.ok()) << b.status();
    if (b.ok()) out.push_back(*b);
  }
  return out;
}

inline api::EtcdCluster EtcdCluster(const Json& obj = EtcdClusterJson()) {
  absl::StatusOr<api::EtcdCluster> c = api::DecodeEtcdCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : api::EtcdCluster{};
}

inline Json PostgresClusterJson() {
  Json repo = {
      {"name", "repo1"},
      {"full",
       {{"backup", "weekly-1"},
        {"label", "20261205-020000F"},
        {"stopTime", "2026-12-05T02:03:00Z"}}},
      {"walArchivedUpTo", "000000020000000000000007"},
      {"recoverableWindow", {{"start", "2026-12-05T02:03:00Z"}, {"end", "2026-12-06T02:05:00Z"}}}};
  return {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", "pg-a"}, {"namespace", "demo"}, {"generation", 1}}},
      {"spec",
       {{"postgresVersion", 17},
        {"instances",
         {{{"name", "main"}, {"replicas", 2}}, {{"name", "reporting"}, {"replicas", 1}}}},
        {"patroni",
         {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "etcd-a"}}}}}}}}}}},
      {"status",
       {{"observedGeneration", 1},
        {"instances",
         {{{"name", "main"}, {"replicas", 2}, {"readyReplicas", 2}, {"updatedReplicas", 2}},
          {{"name", "reporting"}, {"replicas", 1}, {"readyReplicas", 1}, {"updatedReplicas", 1}}}},
        {"readyInstances", "3/3"},
        {"primary", "pg-a-main-1"},
        {"primaryService", "pg-a"},
        {"replicaService", "pg-a-replicas"},
        {"backups", {{"pgbackrest", {{"repos", {repo}}}}}},
        {"patroni",
         {{"systemIdentifier", "7446090000000000000"},
          {"switchover",
           {{"trigger", "t1"},
            {"type", "Switchover"},
            {"from", "pg-a-main-0"},
            {"to", "pg-a-main-1"},
            {"time", "2026-12-06T10:00:00Z"},
            {"result", "Succeeded"}}}}},
        {"conditions",
         {Condition("Ready", "True", "PrimaryReady", "pg-a-main-1 accepts writes",
                    "2026-12-06T10:00:30Z"),
          Condition("Progressing", "False", "Stable", "", "2026-12-06T10:01:00Z")}}}}};
}

inline std::vector<PodInfo> PostgresPods() {
  auto labels = [](const std::string& set, const std::string& role) {
    Json l = {{"postgres.quorum.dev/cluster", "pg-a"}, {"postgres.quorum.dev/instance-set", set}};
    if (!role.empty()) l["role"] = role;
    return l;
  };
  return ParsePodList({{"items",
                        {PodJson("pg-a-main-0", labels("main", "replica"), true, 1),
                         PodJson("pg-a-main-1", labels("main", "primary"), true),
                         PodJson("pg-a-reporting-0", labels("reporting", ""), false)}}});
}

inline Json PostgresBackupJson(const std::string& name, const std::string& created,
                               const std::string& phase, const std::string& stop) {
  Json b = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresBackup"},
            {"metadata", {{"name", name}, {"namespace", "demo"}, {"creationTimestamp", created}}},
            {"spec", {{"clusterRef", {{"name", "pg-a"}}}, {"repoName", "repo1"}, {"type", "full"}}},
            {"status", {{"phase", phase}}}};
  if (!stop.empty()) {
    b["status"]["backup"] = {{"label", "20261205-020000F"},
                             {"type", "full"},
                             {"repo", "repo1"},
                             {"stopTime", stop},
                             {"size", 31457280}};
  }
  return b;
}

inline std::vector<api::PostgresBackup> PostgresBackups() {
  std::vector<api::PostgresBackup> out;
  for (const Json& j :
       {PostgresBackupJson("weekly-1", "2026-12-05T02:00:00Z", "Complete", "2026-12-05T02:03:00Z"),
        PostgresBackupJson("manual-2", "2026-12-06T15:30:00Z", "Started", "")}) {
    absl::StatusOr<api::PostgresBackup> b = api::ParsePostgresBackup(j);
    EXPECT_TRUE(b.ok()) << b.status();
    if (b.ok()) out.push_back(*b);
  }
  return out;
}

inline api::PostgresCluster PostgresCluster(const Json& obj = PostgresClusterJson()) {
  absl::StatusOr<api::PostgresCluster> c = api::DecodePostgresCluster(obj);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : api::PostgresCluster{};
}

}  // namespace quorum::kubectl::fixtures

#endif  // QUORUM_TEST_UNIT_KUBECTL_FIXTURES_H_
