// The objects the kubectl integration tests create: an EtcdCluster and a
// PostgresCluster as a user writes them, the status the operator would
// write for them (three healthy etcd members; a primary and two replicas),
// member pods with the labels the operator and Patroni put on them, and
// backup objects that name the clusters. No operator runs: the tests write
// the statuses themselves, so that what the plugin shows is known.
#ifndef QUORUM_TEST_INTEGRATION_KUBECTL_OBJECTS_H_
#define QUORUM_TEST_INTEGRATION_KUBECTL_OBJECTS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace quorum::kubectl::testing {

using Json = nlohmann::json;

// RFC 3339 of now - `ago`, to the second.
inline std::string Ago(absl::Duration ago) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now() - ago, absl::UTCTimeZone());
}

inline Json Condition(const std::string& type, const std::string& status, const std::string& reason,
                      const std::string& message, absl::Duration ago) {
  return {{"type", type},       {"status", status},        {"reason", reason},
          {"message", message}, {"observedGeneration", 1}, {"lastTransitionTime", Ago(ago)}};
}

inline Json EtcdClusterManifest(const std::string& name) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"replicas", 3},
            {"storage",
             {{"volumeClaimTemplate",
               {{"spec",
                 {{"accessModes", {"ReadWriteOnce"}},
                  {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}}};
}

inline Json EtcdClusterStatus(const std::string& name, const std::string& ns, bool ready) {
  const char* ids[] = {"8e9e05c52164694d", "91bc3c398fb3c146", "fd422379fda50e48"};
  Json members = Json::array();
  for (int i = 0; i < 3; ++i) {
    const std::string member = name + "-" + std::to_string(i);
    const std::string host = member + "." + name + "-headless." + ns + ".svc";
    members.push_back({{"name", member},
                       {"id", ids[i]},
                       {"peerURL", "http://" + host + ":2380"},
                       {"clientURL", "http://" + host + ":2379"},
                       {"isLeader", i == 0},
                       {"isLearner", false},
                       {"healthy", ready || i != 2},
                       {"version", "3.6.16"}});
  }
  return {{"status",
           {{"observedGeneration", 1},
            {"readyReplicas", ready ? 3 : 2},
            {"replicas", 3},
            {"selector", "app.kubernetes.io/instance=" + name + ",app.kubernetes.io/name=etcd"},
            {"leader", name + "-0"},
            {"clientEndpoint", "http://" + name + "." + ns + ".svc:2379"},
            {"lowestVersion", "3.6.16"},
            {"members", members},
            {"conditions",
             {Condition("Initialized", "True", "InitialMembersJoined", "", absl::Hours(26)),
              ready ? Condition("Ready", "True", "ClusterReady", "", absl::Hours(26))
                    : Condition("Ready", "False", "MembersUnhealthy",
                                "member " + name + "-2 is not healthy", absl::Minutes(3))}}}}};
}

inline Json PostgresClusterManifest(const std::string& name, const std::string& etcd) {
  return {
      {"apiVersion", "postgres.quorum.dev/v1alpha1"},
      {"kind", "PostgresCluster"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"postgresVersion", 15},
        {"instances",
         {{{"name", "main"},
           {"replicas", 3},
           {"dataVolumeClaimSpec",
            {{"accessModes", {"ReadWriteOnce"}},
             {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
        {"users", {{{"name", "app"}, {"databases", {"app"}}}}},
        {"backups",
         {{"pgbackrest",
           {{"repos",
             {{{"name", "repo1"},
               {"volume",
                {{"volumeClaimSpec",
                  {{"accessModes", {"ReadWriteOnce"}},
                   {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}}}}}}},
        {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", etcd}}}}}}}}}}}};
}

inline Json PostgresClusterStatus(const std::string& name) {
  return {{"status",
           {{"observedGeneration", 1},
            {"instances",
             {{{"name", "main"}, {"replicas", 3}, {"readyReplicas", 3}, {"updatedReplicas", 3}}}},
            {"readyInstances", "3/3"},
            {"primary", name + "-main-1"},
            {"primaryService", name},
            {"replicaService", name + "-replicas"},
            {"backups",
             {{"pgbackrest",
               {{"repos",
                 {{{"name", "repo1"},
                   {"full",
                    {{"backup", "nightly"},
                     {"label", "20261206-020000F"},
                     {"stopTime", Ago(absl::Hours(8))}}},
                   {"walArchivedUpTo", "000000020000000000000012"},
                   {"recoverableWindow",
                    {{"start", Ago(absl::Hours(8))}, {"end", Ago(absl::Minutes(1))}}}}}}}}}},
            {"patroni",
             {{"systemIdentifier", "7446094612317802544"},
              {"switchover",
               {{"trigger", "2026-12-06-maintenance"},
                {"type", "Switchover"},
                {"from", name + "-main-0"},
                {"to", name + "-main-1"},
                {"time", Ago(absl::Hours(2))},
                {"result", "Succeeded"}}}}},
            {"conditions",
             {Condition("Ready", "True", "PrimaryReady", name + "-main-1 accepts writes",
                        absl::Hours(2)),
              Condition("DCSReady", "True", "Reachable", "", absl::Hours(30)),
              Condition("Progressing", "False", "Stable", "", absl::Hours(2))}}}}};
}

// A pod no scheduler places (the e2e node may have joined the control plane
// meanwhile: a kubelet running it would overwrite the status the test wrote).
inline Json Pod(const std::string& name, const Json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec",
           {{"schedulerName", "quorum-test-unscheduled"},
            {"containers", {{{"name", "main"}, {"image", "quorum.test/none:1"}}}}}}};
}

inline Json PodStatus(bool ready) {
  return {{"status",
           {{"phase", "Running"},
            {"conditions",
             {{{"type", "Ready"},
               {"status", ready ? "True" : "False"},
               {"lastTransitionTime", Ago(absl::Hours(2))}}}}}}};
}

inline Json EtcdBackupManifest(const std::string& name, const std::string& cluster) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdBackup"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"clusterRef", {{"name", cluster}}},
            {"destination", {{"pvc", {{"claimName", "backups"}, {"subPath", name}}}}}}}};
}

inline Json EtcdBackupStatus(const std::string& name) {
  return {{"status",
           {{"phase", "Complete"},
            {"snapshot",
             {{"uri", "pvc://backups/" + name + "/snapshot.db"},
              {"revision", 81234},
              {"size", 4259840},
              {"sha256", std::string(64, 'a')},
              {"takenAt", Ago(absl::Hours(5))}}}}}};
}

inline Json PostgresBackupManifest(const std::string& name, const std::string& cluster) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresBackup"},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterRef", {{"name", cluster}}}, {"repoName", "repo1"}, {"type", "full"}}}};
}

inline Json PostgresBackupStatus() {
  return {{"status",
           {{"phase", "Complete"},
            {"backup",
             {{"label", "20261206-020000F"},
              {"type", "full"},
              {"repo", "repo1"},
              {"startTime", Ago(absl::Hours(9))},
              {"stopTime", Ago(absl::Hours(8))},
              {"size", 31457280},
              {"repoSize", 4194304}}}}}};
}

}  // namespace quorum::kubectl::testing

#endif  // QUORUM_TEST_INTEGRATION_KUBECTL_OBJECTS_H_
