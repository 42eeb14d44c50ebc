// Issue 36.4: replacing the operator with a newer version leaves running
// databases alone. The previous landed version (test/e2e/previous-operator.commit,
// built by hack/previous-operator.sh with the CRDs it shipped) makes an
// EtcdCluster with managed TLS and auth on claims, a PostgresCluster on its etcd
// DCS and one on the Kubernetes DCS; then the CRDs of this build are applied
// and this build's operator replaces the old one, as a user's upgrade does.
// Every pod keeps its uid and restart count, every StatefulSet its pod
// template revision, every PostgreSQL primary its postmaster start time, and
// the rows written before are there.
//
// The test applies CRDs of another version on the shared control plane, so it
// runs alone (RUN_SERIAL); it applies this build's CRDs again at its end.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPostgres{"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};

// What a restart would change, per pod and per StatefulSet.
struct Snapshot {
  std::map<std::string, std::string> pod_uid;
  std::map<std::string, int> pod_restarts;  // summed over its containers
  std::map<std::string, std::string> sts_revision;
  std::map<std::string, std::string> postmaster_start;  // per PostgresCluster
};

class OperatorUpgradeE2E : public E2ETest {
 protected:
  absl::Status InstallCrds(const std::string& folder) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() != ".yaml") continue;
      absl::Status s = testenv::InstallCrd(client(), entry.path().string());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  bool Ready(const kube::GroupVersionResource& gvr, const std::string& name) {
    auto c = client().Get(gvr, ns(), name);
    if (!c.ok()) return false;
    const Json& status = c->value("status", Json::object());
    if (status.value("observedGeneration", int64_t{0}) !=
        (*c)["metadata"].value("generation", int64_t{-1})) {
      return false;
    }
    for (const Json& cond : status.value("conditions", Json::array()))
      if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
    return false;
  }

  Json PostgresOn(const std::string& name, const Json& dcs) {
    return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", name}, {"namespace", ns()}}},
            {"spec",
             {{"postgresVersion", 15},
              {"patroni", {{"dcs", dcs}}},
              {"instances",
               Json::array({{{"name", "main"},
                             {"replicas", 2},
                             {"dataVolumeClaimSpec",
                              {{"accessModes", Json::array({"ReadWriteOnce"})},
                               {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  }

  CommandResult Sql(const std::string& cluster, const std::string& sql) {
    return Psql(client(), ns(), cluster + "-superuser", absl::StrCat(cluster, ".", ns(), ".svc"),
                sql);
  }

  Snapshot Take(const std::vector<std::string>& postgres) {
    Snapshot s;
    auto pods = client().List(kPods, ns());
    EXPECT_TRUE(pods.ok()) << pods.status();
    if (pods.ok()) {
      for (const Json& p : (*pods)["items"]) {
        const std::string name = p["metadata"].value("name", "");
        if (p["metadata"].contains("ownerReferences") &&
            p["metadata"]["ownerReferences"][0].value("kind", "") == "Job") {
          continue;  // one-shot Jobs come and go
        }
        s.pod_uid[name] = p["metadata"].value("uid", "");
        int restarts = 0;
        for (const Json& c :
             p.value("status", Json::object()).value("containerStatuses", Json::array())) {
          restarts += c.value("restartCount", 0);
        }
        s.pod_restarts[name] = restarts;
      }
    }
    auto sets = client().List(kStatefulSets, ns());
    EXPECT_TRUE(sets.ok()) << sets.status();
    if (sets.ok()) {
      for (const Json& set : (*sets)["items"]) {
        s.sts_revision[set["metadata"].value("name", "")] =
            set.value("status", Json::object()).value("updateRevision", "");
      }
    }
    for (const std::string& pg : postgres) {
      CommandResult r = Sql(pg, "select pg_postmaster_start_time();");
      EXPECT_EQ(r.exit_code, 0) << pg << ": " << r.output;
      s.postmaster_start[pg] = std::string(absl::StripAsciiWhitespace(r.output));
    }
    return s;
  }
};

// The lines of `log` after byte `from` that end a reconcile of `key` in
// `controller` without an error.
bool Reconciled(const std::string& log, size_t from, const std::string& controller,
                const std::string& key) {
  const std::string text = FileText(log);
  if (text.size() <= from) return false;
  const std::string prefix =
      absl::StrCat("controller ", controller, ": reconcile ", key, " done: ");
  for (absl::string_view line : absl::StrSplit(absl::string_view(text).substr(from), '\n')) {
    const size_t at = line.find(prefix);
    if (at != absl::string_view::npos &&
        !absl::StartsWith(line.substr(at + prefix.size()), "error"))
      return true;
  }
  return false;
}

TEST_F(OperatorUpgradeE2E, ThePreviousVersionsClustersRunOnWithoutARestart) {
  // The previous version's program and CRDs (built once per commit, cached).
  const CommandResult built = RunCommand(
      {std::string(QUORUM_SOURCE_DIR) + "/hack/previous-operator.sh"}, absl::Minutes(25));
  if (built.exit_code == 77) {  // a shallow clone: no earlier version to build
    GTEST_SKIP() << built.output;
  }
  ASSERT_EQ(built.exit_code, 0) << built.output;
  std::vector<std::string> lines =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(built.output), '\n');
  const std::string previous = lines.back();
  std::cout << "previous operator: " << FileText(previous + "/commit");

  const std::string current_crds = std::string(QUORUM_SOURCE_DIR) + "/deploy/crds";
  absl::Cleanup restore_crds = [&] { EXPECT_TRUE(InstallCrds(current_crds).ok()); };
  ASSERT_TRUE(InstallCrds(previous + "/crds").ok());
  auto old = std::make_unique<OperatorProcess>(ns(), previous + "/quorum-operator");
  old->Start();

  const Json etcd = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                     {"kind", "EtcdCluster"},
                     {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
                     {"spec",
                      {{"replicas", 3},
                       {"storage",
                        {{"volumeClaimTemplate",
                          {{"spec",
                            {{"accessModes", {"ReadWriteOnce"}},
                             {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}}},
                       {"security", {{"enableAuth", true}, {"tls", {{"managed", true}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  ASSERT_TRUE(client()
                  .Create(kPostgres, ns(),
                          PostgresOn("pg-etcd", {{"type", "etcd"},
                                                 {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}))
                  .ok());
  ASSERT_TRUE(
      client().Create(kPostgres, ns(), PostgresOn("pg-k8s", {{"type", "kubernetes"}})).ok());
  const std::vector<std::string> postgres = {"pg-etcd", "pg-k8s"};
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Ready(kEtcdClusters, "dcs") && Ready(kPostgres, "pg-etcd") &&
               Ready(kPostgres, "pg-k8s");
      },
      absl::Minutes(10)))
      << "the previous version's clusters did not become Ready";
  for (const std::string& pg : postgres) {
    CommandResult w;
    ASSERT_TRUE(testenv::Eventually(
        [&] {
          w = Sql(pg,
                  "create table if not exists rows(id int primary key); "
                  "insert into rows values (1) on conflict do nothing;");
          return w.exit_code == 0;
        },
        absl::Minutes(2)))
        << pg << ": " << w.output;
  }
  const Snapshot before = Take(postgres);
  ASSERT_FALSE(HasFailure());

  // The upgrade: the old operator stops, this build's CRDs and operator come.
  old.reset();
  ASSERT_TRUE(InstallCrds(current_crds).ok());
  OperatorProcess now(ns());  // logs at debug level, where each reconcile's end is
  const size_t log_from = FileText(now.log_path()).size();
  now.Start();
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Reconciled(now.log_path(), log_from, "etcdcluster", ns() + "/dcs") &&
               Reconciled(now.log_path(), log_from, "postgrescluster", ns() + "/pg-etcd") &&
               Reconciled(now.log_path(), log_from, "postgrescluster", ns() + "/pg-k8s");
      },
      absl::Minutes(3)))
      << "this build's operator did not reconcile every cluster; its log: " << now.log_path();
  // A restart the new version decides starts in its first reconciles; this
  // wait lets one that starts from a requeue show too (only time shows an
  // absence).
  absl::SleepFor(absl::Seconds(45));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        return Ready(kEtcdClusters, "dcs") && Ready(kPostgres, "pg-etcd") &&
               Ready(kPostgres, "pg-k8s");
      },
      absl::Minutes(2)))
      << "the clusters are not Ready under this build's operator";
  const Snapshot after = Take(postgres);

  int restarted = 0;
  for (const auto& [pod, uid] : before.pod_uid) {
    const bool same = after.pod_uid.count(pod) && after.pod_uid.at(pod) == uid &&
                      after.pod_restarts.at(pod) == before.pod_restarts.at(pod);
    EXPECT_TRUE(same) << "pod " << pod << " was replaced or restarted by the upgrade";
    restarted += same ? 0 : 1;
  }
  EXPECT_EQ(after.pod_uid.size(), before.pod_uid.size());
  for (const auto& [set, revision] : before.sts_revision) {
    EXPECT_EQ(after.sts_revision.count(set) ? after.sts_revision.at(set) : "", revision)
        << "StatefulSet " << set << "'s pod template changed: its pods would roll";
  }
  for (const std::string& pg : postgres) {
    EXPECT_EQ(after.postmaster_start.at(pg), before.postmaster_start.at(pg))
        << pg << "'s primary restarted PostgreSQL";
    CommandResult r = Sql(pg, "select count(*) from rows;");
    EXPECT_EQ(absl::StripAsciiWhitespace(r.output), "1") << pg << ": " << r.output;
  }
  std::cout << "operator upgrade: " << restarted << " of " << before.pod_uid.size()
            << " pods restarted, " << before.sts_revision.size() << " StatefulSets\n";
}

}  // namespace
}  // namespace quorum::e2e
