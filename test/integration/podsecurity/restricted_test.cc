// Every pod Quorum creates passes the Kubernetes "restricted" Pod Security
// Standard (issue 34.7), judged by the real API server's PodSecurity
// admission: each pod template the builders make — etcd members (managed
// TLS, restore init containers), PostgreSQL members and the pgBackRest
// repository host, the etcd snapshot and prune Jobs, the PostgreSQL backup
// Job — is created as a Pod (server-side dry run) in a namespace that
// enforces `restricted`. A template that breaks a rule is refused and the
// test names the rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/etcdbackup_types.h"
#include "api/etcdbackupschedule_types.h"
#include "api/etcdcluster_types.h"
#include "api/postgresbackup_types.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/etcdbackup/job.h"
#include "src/controllers/etcdbackupschedule/prune.h"
#include "src/controllers/etcdcluster/builders.h"
#include "src/controllers/postgresbackup/job.h"
#include "src/controllers/postgrescluster/builders.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "test/integration/testenv.h"

namespace quorum {
namespace {

using kube::Json;

constexpr char kOperatorImage[] = "ghcr.io/quorum-dev/quorum-operator:0.1.0";

template <typename T, typename F>
T Parsed(F parse, const Json& obj) {
  absl::StatusOr<T> parsed = parse(obj);
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << obj.dump();
  return parsed.ok() ? *std::move(parsed) : T{};
}

class RestrictedPodSecurityTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    absl::StatusOr<Json> got = client().Get({"", "v1", "namespaces"}, "", ns());
    ASSERT_TRUE(got.ok()) << got.status();
    (*got)["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "restricted";
    (*got)["metadata"]["labels"]["pod-security.kubernetes.io/enforce-version"] = "latest";
    ASSERT_TRUE(client().Update({"", "v1", "namespaces"}, "", *got).ok());
  }

  // The pod a workload's template makes, created as a dry run: OK, or the
  // API server's answer (PodSecurity names each broken rule).
  absl::Status TryPod(const std::string& name, const Json& workload) {
    const Json& tmpl = workload["spec"].contains("jobTemplate")
                           ? workload["spec"]["jobTemplate"]["spec"]["template"]
                           : workload["spec"]["template"];
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", ns()}}},
                {"spec", tmpl["spec"]}};
    // A StatefulSet's pod gets a volume per claim template.
    for (const Json& claim : workload["spec"].value("volumeClaimTemplates", Json::array())) {
      const std::string volume = claim["metadata"]["name"];
      pod["spec"]["volumes"].push_back(
          {{"name", volume}, {"persistentVolumeClaim", {{"claimName", volume + "-" + name}}}});
    }
    return client()
        .Apply({"", "v1", "pods"}, ns(), pod,
               {.field_manager = "pod-security-test", .force = true, .dry_run = true})
        .status();
  }

  Json Meta(const std::string& name) {
    return {{"name", name}, {"namespace", ns()}, {"uid", "u1"}};
  }
};

TEST_F(RestrictedPodSecurityTest, EveryPodQuorumCreatesPassesRestricted) {
  std::vector<std::pair<std::string, Json>> workloads;

  // etcd: managed TLS and auth, restored from a snapshot (init containers).
  const api::EtcdCluster etcd = Parsed<api::EtcdCluster>(
      api::ParseEtcdCluster,
      {{"apiVersion", "etcd.aenix.io/v1alpha1"},
       {"kind", "EtcdCluster"},
       {"metadata", Meta("e")},
       {"spec",
        {{"replicas", 3},
         {"security", {{"enableAuth", true}, {"tls", {{"managed", true}}}}},
         {"bootstrap",
          {{"restore",
            {{"source", {{"pvc", {{"claimName", "snaps"}, {"subPath", "e.db"}}}}}}}}}}}});
  workloads.emplace_back("etcd-member", etcdcluster::BuildStatefulSet(etcd, 3, kOperatorImage));

  // PostgreSQL on an etcd DCS with backups to S3 and to a volume repository.
  Json pg_json =
      Json::parse(R"({"apiVersion": "postgres.quorum.dev/v1alpha1", "kind": "PostgresCluster",
        "spec": {"postgresVersion": 17,
          "instances": [{"name": "main", "replicas": 2, "dataVolumeClaimSpec":
                         {"resources": {"requests": {"storage": "1Gi"}}}}],
          "patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["https://e:2379"]}}},
          "backups": {"pgbackrest": {"repos": [
            {"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3.local", "region": "r"}},
            {"name": "repo2", "volume": {"volumeClaimSpec":
                                        {"resources": {"requests": {"storage": "1Gi"}}}}}]}}}})");
  pg_json["metadata"] = Meta("pg");
  const api::PostgresCluster pg = Parsed<api::PostgresCluster>(api::ParsePostgresCluster, pg_json);
  const postgrescluster::DcsResolution dcs = postgrescluster::ResolveDcs(
      pg, [](const std::string&, const std::string&) { return nullptr; });
  workloads.emplace_back(
      "pg-member", postgrescluster::BuildStatefulSet(
                       pg, pg.spec.instances[0], postgrescluster::BuildPatroniInput(pg, dcs), dcs));
  std::optional<Json> repo_host = postgrescluster::BuildRepoHostStatefulSet(pg);
  ASSERT_TRUE(repo_host.has_value());
  workloads.emplace_back("pg-repo-host", *repo_host);

  // Jobs: an etcd snapshot, a prune of old snapshots, a PostgreSQL backup.
  const api::EtcdBackup snapshot = Parsed<api::EtcdBackup>(
      api::ParseEtcdBackup,
      {{"apiVersion", "etcd.aenix.io/v1alpha1"},
       {"kind", "EtcdBackup"},
       {"metadata", Meta("snap")},
       {"spec",
        {{"clusterRef", {{"name", "e"}}}, {"destination", {{"pvc", {{"claimName", "snaps"}}}}}}}});
  workloads.emplace_back("etcd-snapshot",
                         etcdbackup::BuildSnapshotJob(snapshot, etcd, kOperatorImage));
  const api::EtcdBackupSchedule schedule = Parsed<api::EtcdBackupSchedule>(
      api::ParseEtcdBackupSchedule, {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                                     {"kind", "EtcdBackupSchedule"},
                                     {"metadata", Meta("nightly")},
                                     {"spec",
                                      {{"clusterRef", {{"name", "e"}}},
                                       {"schedule", "0 3 * * *"},
                                       {"destination", {{"pvc", {{"claimName", "snaps"}}}}}}}});
  workloads.emplace_back("etcd-prune",
                         etcdbackupschedule::BuildPruneJob(schedule, {"e-old.db"}, kOperatorImage));
  const api::PostgresBackup backup = Parsed<api::PostgresBackup>(
      api::ParsePostgresBackup,
      {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
       {"kind", "PostgresBackup"},
       {"metadata", Meta("full")},
       {"spec", {{"clusterRef", {{"name", "pg"}}}, {"repoName", "repo1"}}}});
  workloads.emplace_back("pg-backup", postgresbackup::BuildBackupJob(
                                          backup, pg, postgresbackup::MemberPods(pg), false));

  for (const auto& [name, workload] : workloads) {
    const absl::Status s = TryPod(name, workload);
    EXPECT_TRUE(s.ok()) << name << " breaks the restricted Pod Security Standard: " << s;
  }
  // The check can fail: a pod that runs as root is refused here.
  Json root = workloads[0].second;
  root["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] = false;
  EXPECT_FALSE(TryPod("root", root).ok()) << "the namespace does not enforce restricted";
}

}  // namespace
}  // namespace quorum
