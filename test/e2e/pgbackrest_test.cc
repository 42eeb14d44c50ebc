// PostgreSQL backups with pgBackRest on the real node (issue 16): a
// PostgresCluster with spec.backups.pgbackrest archives its WAL to an S3 store
// (SeaweedFS from hack/s3.sh, over TLS with its own CA, reached through a
// Service without selector), and PostgresBackup objects take a full backup
// from a replica, then an incremental one on top of it; a backup naming a
// repository the cluster lacks waits, saying so. Point-in-time recovery: rows
// committed, a full backup, more rows, time T, more rows; new clusters
// restored to T (spec.dataSource.pgbackrest) on the kubernetes DCS and on the
// etcd DCS of an EtcdCluster hold exactly the rows committed up to T. A
// failover while a backup runs: the backup completes or fails saying why, and
// the next one completes. A replica down: a backup still completes, from the
// primary alone (issue 33). A schedule every minute creates a PostgresBackup per
// cron time, each completing. In-place restores of running clusters to T on
// both DCS (spec.backups.pgbackrest.restore and its annotation). A volume
// repository beside the S3 one, through the repository host.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "src/base/failpoint.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {
namespace {

const kube::GroupVersionResource kPostgres{"postgres.quorum.dev", "v1alpha1", "postgresclusters"};
const kube::GroupVersionResource kBackups{"postgres.quorum.dev", "v1alpha1", "postgresbackups"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kSlices{"discovery.k8s.io", "v1", "endpointslices"};
constexpr char kNodeAddress[] = "10.245.0.1";  // hack/node.sh's bridge: pods reach it

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(ss.str()));
}

class PgBackRestE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (HasFatalFailure()) return;
    for (const char* file : {"postgres.quorum.dev_postgresclusters.yaml",
                             "postgres.quorum.dev_postgresbackups.yaml"}) {
      absl::Status crd =
          testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + file);
      ASSERT_TRUE(crd.ok()) << crd;
    }
    // The store over TLS, its certificate naming the Service the pods use:
    // pgBackRest checks DNS names only.
    s3_dir_ = absl::StrCat(testenv::GetControlPlane()->dir, "/s3-", ns());
    const std::string start = absl::StrCat("QUORUM_OWNER_PID=none QUORUM_S3_ADDRESS=", kNodeAddress,
                                           " QUORUM_S3_DNS_NAMES=s3.", ns(), ".svc ",
                                           QUORUM_SOURCE_DIR, "/hack/s3.sh start ", s3_dir_);
    ASSERT_EQ(std::system(start.c_str()), 0) << "hack/s3.sh start failed";
    int port = 0;
    std::ifstream env(s3_dir_ + "/env");
    for (std::string line; std::getline(env, line);) {
      const std::string prefix = "export QUORUM_S3_ENDPOINT='";
      if (line.rfind(prefix, 0) == 0) {
        const std::string endpoint = line.substr(prefix.size(), line.size() - prefix.size() - 1);
        ASSERT_TRUE(absl::SimpleAtoi(endpoint.substr(endpoint.rfind(':') + 1), &port)) << endpoint;
      }
    }
    ASSERT_GT(port, 0);
    ASSERT_TRUE(client()
                    .Create(kServices, ns(),
                            {{"apiVersion", "v1"},
                             {"kind", "Service"},
                             {"metadata", {{"name", "s3"}, {"namespace", ns()}}},
                             {"spec", {{"ports", {{{"name", "https"}, {"port", 443}}}}}}})
                    .ok());
    ASSERT_TRUE(client()
                    .Create(kSlices, ns(),
                            {{"apiVersion", "discovery.k8s.io/v1"},
                             {"kind", "EndpointSlice"},
                             {"metadata",
                              {{"name", "s3-host"},
                               {"namespace", ns()},
                               {"labels", {{"kubernetes.io/service-name", "s3"}}}}},
                             {"addressType", "IPv4"},
                             {"endpoints", {{{"addresses", {kNodeAddress}}}}},
                             {"ports", {{{"name", "https"}, {"port", port}}}}})
                    .ok());
    // The keys and the store's CA only in a Secret (conf.d).
    const std::string conf =
        absl::StrCat("[global]\nrepo1-s3-key=", ReadFile(s3_dir_ + "/credentials/access-key"),
                     "\nrepo1-s3-key-secret=", ReadFile(s3_dir_ + "/credentials/secret-key"), "\n");
    ASSERT_TRUE(client()
                    .Create(kSecrets, ns(),
                            {{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", "pgbackrest-s3"}, {"namespace", ns()}}},
                             {"stringData",
                              {{"s3.conf", conf}, {"ca.crt", ReadFile(s3_dir_ + "/pki/ca.crt")}}}})
                    .ok());
  }
  void TearDown() override {
    if (!s3_dir_.empty()) {
      std::system(absl::StrCat(QUORUM_SOURCE_DIR, "/hack/s3.sh stop ", s3_dir_).c_str());
    }
    E2ETest::TearDown();
  }

  // The store as a restore source: the repository `cluster` wrote, the same
  // Secret (keys and CA, in restore.d this time).
  Json RestoreSource(const std::string& cluster, const std::string& time) {
    return {{"pgbackrest",
             {{"clusterName", cluster},
              {"repo",
               {{"name", "repo1"},
                {"s3",
                 {{"bucket", "quorum-backups"},
                  {"endpoint", absl::StrCat("s3.", ns(), ".svc")},
                  {"region", "us-east-1"}}}}},
              {"configuration", Json::array({{{"secret", {{"name", "pgbackrest-s3"}}}}})},
              {"global",
               {{"repo1-s3-uri-style", "path"},
                {"repo1-storage-ca-file", "/etc/pgbackrest/restore.d/ca.crt"}}},
              {"target", {{"time", time}}}}}};
  }

  Json Cluster(const std::string& name, int replicas) {
    return {
        {"apiVersion", "postgres.quorum.dev/v1alpha1"},
        {"kind", "PostgresCluster"},
        {"metadata", {{"name", name}, {"namespace", ns()}}},
        {"spec",
         {{"postgresVersion", 15},
          {"instances", Json::array({{{"name", "main"},
                                      {"replicas", replicas},
                                      {"dataVolumeClaimSpec",
                                       {{"accessModes", Json::array({"ReadWriteOnce"})},
                                        {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})},
          {"backups",
           {{"pgbackrest",
             {{"repos", Json::array({{{"name", "repo1"},
                                      {"s3",
                                       {{"bucket", "quorum-backups"},
                                        {"endpoint", absl::StrCat("s3.", ns(), ".svc")},
                                        {"region", "us-east-1"}}}}})},
              {"configuration", Json::array({{{"secret", {{"name", "pgbackrest-s3"}}}}})},
              {"global",
               {{"repo1-s3-uri-style", "path"},
                {"repo1-storage-ca-file", "/etc/pgbackrest/conf.d/ca.crt"},
                {"repo1-retention-full", "2"},
                {"start-fast", "y"}}}}}}}}}};
  }

  // A one-member EtcdCluster "dcs" for the clusters OnEtcdDcs makes.
  bool CreateEtcdDcs() {
    return client()
        .Create({"etcd.aenix.io", "v1alpha1", "etcdclusters"}, ns(),
                {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                 {"kind", "EtcdCluster"},
                 {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
                 {"spec", {{"replicas", 1}, {"storage", {{"emptyDir", Json::object()}}}}}})
        .ok();
  }
  static Json OnEtcdDcs(Json cluster) {
    cluster["spec"]["patroni"] = {
        {"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}};
    return cluster;
  }

  bool Ready(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    if (!c.ok()) return false;
    for (const Json& cond : c->value("status", Json::object()).value("conditions", Json::array()))
      if (cond.value("type", "") == "Ready") return cond.value("status", "") == "True";
    return false;
  }

  // "<pod>=<uid>" of the cluster's pods, sorted: equal lists mean none was
  // replaced.
  std::vector<std::string> PodUids(const std::string& cluster) {
    std::vector<std::string> out;
    auto pods = client().List({"", "v1", "pods"}, ns(),
                              {.label_selector = "postgres.quorum.dev/cluster=" + cluster});
    if (!pods.ok()) return {pods.status().ToString()};
    for (const Json& pod : pods->value("items", Json::array())) {
      out.push_back(pod["metadata"].value("name", "") + "=" + pod["metadata"].value("uid", ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  CommandResult Sql(const std::string& cluster, const std::string& sql) {
    return Psql(client(), ns(), cluster + "-superuser", "", sql);
  }

  // The first statement after Ready, retried: the primary Service may route
  // a moment after the cluster says Ready. Statements must be repeatable.
  CommandResult FirstSql(const std::string& cluster, const std::string& sql) {
    CommandResult r;
    testenv::Eventually(
        [&] {
          r = Sql(cluster, sql);
          return r.exit_code == 0;
        },
        absl::Minutes(2));
    return r;
  }

  void CreateBackup(const std::string& name, const std::string& cluster, const std::string& repo,
                    const std::string& type) {
    auto made = client().Create(
        kBackups, ns(),
        {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
         {"kind", "PostgresBackup"},
         {"metadata", {{"name", name}, {"namespace", ns()}}},
         {"spec", {{"clusterRef", {{"name", cluster}}}, {"repoName", repo}, {"type", type}}}});
    ASSERT_TRUE(made.ok()) << made.status();
  }

  // The backup's status once it reaches `phase` (or another final phase).
  Json WaitBackup(const std::string& name, const std::string& phase, absl::Duration timeout) {
    Json status;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          auto b = client().Get(kBackups, ns(), name);
          if (!b.ok()) return false;
          status = b->value("status", Json::object());
          const std::string p = status.value("phase", "");
          return p == phase || p == "Complete" || p == "Failed";
        },
        timeout))
        << name << " never reached " << phase << ": " << status.dump();
    return status;
  }

  // Rows 101..200 committed before the time returned (T, RFC 3339 in UTC),
  // 201..300 clearly after it; everything archived. Rows 1..100 exist.
  std::string RowsAroundATime(const std::string& cluster) {
    EXPECT_EQ(Sql(cluster, "insert into t select generate_series(101,200);").exit_code, 0);
    CommandResult t = Sql(cluster,
                          "select to_char(clock_timestamp() at time zone 'UTC', "
                          "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"');");
    EXPECT_EQ(t.exit_code, 0) << t.output;
    const std::string target(absl::StripAsciiWhitespace(t.output));
    // The later rows commit clearly after T: wait for the server's clock.
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          CommandResult r = Sql(cluster, absl::StrCat("select clock_timestamp() > '", target,
                                                      "'::timestamptz + interval '1 second';"));
          return r.exit_code == 0 && absl::StripAsciiWhitespace(r.output) == "t";
        },
        absl::Seconds(30)));
    EXPECT_EQ(Sql(cluster, "insert into t select generate_series(201,300);").exit_code, 0);
    // Everything up to the last commit reaches the archive.
    CommandResult sw = Sql(cluster, "select pg_walfile_name(pg_switch_wal());");
    EXPECT_EQ(sw.exit_code, 0) << sw.output;
    const std::string segment(absl::StripAsciiWhitespace(sw.output));
    std::string last;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          CommandResult r =
              Sql(cluster, "select coalesce(last_archived_wal, '') from pg_stat_archiver;");
          last = std::string(absl::StripAsciiWhitespace(r.output));
          return r.exit_code == 0 && last >= segment;
        },
        absl::Minutes(3)))
        << "segment " << segment << " not archived; last " << last;
    return target;
  }

  // Exactly rows 1..200 in `cluster`, and a primary that takes writes.
  void ExpectRowsUpToTheTarget(const std::string& cluster, const std::string& target) {
    std::string rows;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          CommandResult r = Sql(cluster, "select count(*), min(id), max(id) from t;");
          rows = std::string(absl::StripAsciiWhitespace(r.output));
          return r.exit_code == 0;
        },
        absl::Minutes(2)))
        << rows;
    EXPECT_EQ(rows, "200|1|200") << "rows up to " << target;
    // It is a primary that takes writes (promoted at the target).
    CommandResult more = Sql(cluster, "insert into t values (1000); select pg_is_in_recovery();");
    EXPECT_EQ(more.exit_code, 0) << more.output;
    EXPECT_EQ(std::string(absl::StripAsciiWhitespace(more.output)), "f");
  }

  std::string s3_dir_;
};

TEST_F(PgBackRestE2E, ArchivesWalAndTakesFullThenIncrementalBackupsFromAReplica) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kPostgres, ns(), Cluster("arc", 2)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("arc"); }, absl::Minutes(8)))
      << "the PostgresCluster did not become Ready";

  // WAL archiving: a segment switch reaches the store (the archiver's
  // counter), and no attempt failed for good.
  CommandResult w = FirstSql("arc",
                             "drop table if exists t; create table t(id int); insert into t "
                             "select generate_series(1,1000); select pg_switch_wal();");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  std::string archived;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        CommandResult r = Sql("arc", "select archived_count from pg_stat_archiver;");
        archived = r.output;
        int n = 0;
        return r.exit_code == 0 && absl::SimpleAtoi(absl::StripAsciiWhitespace(r.output), &n) &&
               n > 0;
      },
      absl::Minutes(3)))
      << "nothing archived: " << archived;

  // A backup naming a repository the cluster lacks waits, saying why.
  ASSERT_NO_FATAL_FAILURE(CreateBackup("elsewhere", "arc", "repo2", "full"));
  Json pending = WaitBackup("elsewhere", "Pending", absl::Minutes(1));
  EXPECT_EQ(pending.value("phase", ""), "Pending");
  EXPECT_TRUE(absl::StrContains(pending.dump(), "RepoNotFound")) << pending.dump();

  // A full backup, from the replica (two members are ready).
  ASSERT_NO_FATAL_FAILURE(CreateBackup("full-1", "arc", "repo1", "full"));
  Json full = WaitBackup("full-1", "Complete", absl::Minutes(10));
  ASSERT_EQ(full.value("phase", ""), "Complete") << full.dump();
  const Json& fb = full["backup"];
  EXPECT_EQ(fb.value("type", ""), "full");
  EXPECT_EQ(fb.value("repo", ""), "repo1");
  EXPECT_TRUE(absl::EndsWith(fb.value("label", ""), "F")) << fb.dump();
  EXPECT_GT(fb.value("size", int64_t{0}), 1000000) << fb.dump();
  EXPECT_GT(fb.value("repoSize", int64_t{0}), 0) << fb.dump();
  EXPECT_FALSE(fb.value("walStart", "").empty()) << fb.dump();

  // More rows, then an incremental backup on top of the full one.
  ASSERT_EQ(Sql("arc", "insert into t select generate_series(1001,2000);").exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(CreateBackup("incr-1", "arc", "repo1", "incr"));
  Json incr = WaitBackup("incr-1", "Complete", absl::Minutes(10));
  ASSERT_EQ(incr.value("phase", ""), "Complete") << incr.dump();
  EXPECT_EQ(incr["backup"].value("type", ""), "incr");
  EXPECT_EQ(incr["backup"].value("prior", ""), fb.value("label", "")) << incr.dump();
  EXPECT_LT(incr["backup"].value("repoSize", int64_t{0}), fb.value("repoSize", int64_t{0}));
  // What the repository held after it: the WAL archived so far, and its
  // oldest backup (the full one); the cluster's status says the same.
  const Json repository = incr["backup"].value("repository", Json::object());
  EXPECT_GE(repository.value("walMax", ""), incr["backup"].value("walStop", "")) << incr.dump();
  EXPECT_FALSE(repository.value("walMin", "").empty()) << incr.dump();
  EXPECT_EQ(repository.value("oldestStopTime", ""), fb.value("stopTime", "")) << incr.dump();
  Json repo_status;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "arc");
        if (!c.ok()) return false;
        const Json& repos = (*c)["status"]["backups"]["pgbackrest"]["repos"];
        if (!repos.is_array() || repos.empty()) return false;
        repo_status = repos[0];
        return repo_status.value("walArchivedUpTo", "") == repository.value("walMax", "");
      },
      absl::Minutes(1)))
      << repo_status.dump();
  EXPECT_EQ(repo_status["recoverableWindow"].value("start", ""), fb.value("stopTime", ""));
  EXPECT_EQ(repo_status["recoverableWindow"].value("end", ""),
            incr["backup"].value("stopTime", ""));

  // The store's keys never left the Secret: not in the cluster's ConfigMap,
  // nor in the Job's spec.
  const std::string key = ReadFile(s3_dir_ + "/credentials/secret-key");
  auto cm = client().Get({"", "v1", "configmaps"}, ns(), "arc-patroni");
  ASSERT_TRUE(cm.ok());
  EXPECT_FALSE(absl::StrContains(cm->dump(), key));
  auto job = client().Get({"batch", "v1", "jobs"}, ns(), "full-1-backup");
  ASSERT_TRUE(job.ok());
  EXPECT_FALSE(absl::StrContains(job->dump(), key));
  // Both members were ready: the files came from the replica.
  bool from_standby = false;
  for (const Json& e : (*job)["spec"]["template"]["spec"]["containers"][0]["env"]) {
    if (e.value("name", "") == "PGBACKREST_BACKUP_STANDBY")
      from_standby = e.value("value", "") == "y";
  }
  EXPECT_TRUE(from_standby);
}

TEST_F(PgBackRestE2E, PointInTimeRecoveryIntoNewClustersOnBothDcs) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(CreateEtcdDcs());
  ASSERT_TRUE(client().Create(kPostgres, ns(), Cluster("src", 1)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("src"); }, absl::Minutes(8)))
      << "the source cluster did not become Ready";
  CommandResult w = FirstSql("src",
                             "create table if not exists t(id int primary key); insert into t "
                             "select generate_series(1,100) on conflict do nothing;");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  ASSERT_NO_FATAL_FAILURE(CreateBackup("base", "src", "repo1", "full"));
  Json full = WaitBackup("base", "Complete", absl::Minutes(10));
  ASSERT_EQ(full.value("phase", ""), "Complete") << full.dump();

  std::string target;
  ASSERT_NO_FATAL_FAILURE(target = RowsAroundATime("src"));

  Json on_k8s = Cluster("pitr-k8s", 2);
  on_k8s["spec"].erase("backups");
  on_k8s["spec"]["dataSource"] = RestoreSource("src", target);
  ASSERT_TRUE(client().Create(kPostgres, ns(), on_k8s).ok());
  Json on_etcd = Cluster("pitr-etcd", 1);
  on_etcd["spec"].erase("backups");
  on_etcd["spec"]["dataSource"] = RestoreSource("src", target);
  on_etcd = OnEtcdDcs(on_etcd);
  ASSERT_TRUE(client().Create(kPostgres, ns(), on_etcd).ok());
  for (const char* name : {"pitr-k8s", "pitr-etcd"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(10)))
        << name << " did not become Ready";
    ExpectRowsUpToTheTarget(name, target);
  }
  // The restored cluster with a replica: it was cloned from the restored primary.
  auto c = client().Get(kPostgres, ns(), "pitr-k8s");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)["status"].value("readyInstances", ""), "2/2") << (*c)["status"].dump();
}

// In-place restore (spec.backups.pgbackrest.restore and its annotation) of
// running clusters on both DCS: their members stop, their volumes and
// Patroni's state go (the old keys must not block the new bootstrap), the
// first member recovers to T, the others clone it; afterwards the cluster
// archives and backs up again on its new timeline. The operator crashes at
// the riskiest step (volumes and DCS state just removed) and a new one
// finishes the restores.
TEST_F(PgBackRestE2E, InPlaceRestoreToATimeOnBothDcs) {
  auto op = std::make_unique<OperatorProcess>(ns());
  op->Start();
  ASSERT_TRUE(CreateEtcdDcs());
  Json on_etcd = OnEtcdDcs(Cluster("ip-etcd", 1));
  const std::vector<std::string> names = {"ip-k8s", "ip-etcd"};
  ASSERT_TRUE(client().Create(kPostgres, ns(), Cluster("ip-k8s", 2)).ok());
  ASSERT_TRUE(client().Create(kPostgres, ns(), on_etcd).ok());
  std::map<std::string, std::string> targets, uids;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(8)))
        << "did not become Ready";
    CommandResult w = FirstSql(name,
                               "create table if not exists t(id int primary key); insert into t "
                               "select generate_series(1,100) on conflict do nothing;");
    ASSERT_EQ(w.exit_code, 0) << w.output;
    ASSERT_NO_FATAL_FAILURE(CreateBackup(name + "-base", name, "repo1", "full"));
  }
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Json full = WaitBackup(name + "-base", "Complete", absl::Minutes(10));
    ASSERT_EQ(full.value("phase", ""), "Complete") << full.dump();
    ASSERT_NO_FATAL_FAILURE(targets[name] = RowsAroundATime(name));
    auto sts = client().Get({"apps", "v1", "statefulsets"}, ns(), name + "-main");
    ASSERT_TRUE(sts.ok());
    uids[name] = (*sts)["metadata"].value("uid", "");
  }
  // The restore, asked for in one patch: what, and the trigger. The operator
  // that sees it crashes right after its first wipe of Patroni's state and
  // the members' volumes (the status still says Stopping); another one
  // carries on.
  op.reset();
  OperatorProcess crashing(ns());
  crashing.Start({"QUORUM_FAILPOINTS=postgrescluster/after-RestoreWipe"});
  for (const std::string& name : names) {
    ASSERT_TRUE(client()
                    .Patch(kPostgres, ns(), name, kube::PatchType::kMerge,
                           {{"metadata",
                             {{"annotations", {{"postgres.quorum.dev/pgbackrest-restore", "r1"}}}}},
                            {"spec",
                             {{"backups",
                               {{"pgbackrest",
                                 {{"restore",
                                   {{"enabled", true},
                                    {"repoName", "repo1"},
                                    {"target", {{"time", targets[name]}}}}}}}}}}}})
                    .ok());
  }
  ASSERT_EQ(crashing.WaitExit(absl::Minutes(4)), kFailpointExitCode)
      << "the operator never wiped a member for the restore; log " << crashing.log_path();
  op = std::make_unique<OperatorProcess>(ns());
  op->Start();
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Json restore;
    EXPECT_TRUE(testenv::Eventually(
        [&] {
          auto c = client().Get(kPostgres, ns(), name);
          if (!c.ok()) return false;
          restore = (*c)["status"]["backups"]["pgbackrest"].value("restore", Json::object());
          return restore.value("id", "") == "r1" && restore.value("phase", "") == "Succeeded";
        },
        absl::Minutes(10)))
        << "the restore did not succeed: " << restore.dump();
    ASSERT_TRUE(testenv::Eventually([&] { return Ready(name); }, absl::Minutes(5)))
        << "not Ready after the restore";
    ExpectRowsUpToTheTarget(name, targets[name]);
    // The same StatefulSet (the cluster was restored, not re-created).
    auto sts = client().Get({"apps", "v1", "statefulsets"}, ns(), name + "-main");
    ASSERT_TRUE(sts.ok());
    EXPECT_EQ((*sts)["metadata"].value("uid", ""), uids[name]);
  }
  // Both members of the kubernetes DCS cluster run (the replica cloned the
  // restored primary), and a backup after the restore completes.
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "ip-k8s");
        return c.ok() && (*c)["status"].value("readyInstances", "") == "2/2";
      },
      absl::Minutes(5)));
  ASSERT_NO_FATAL_FAILURE(CreateBackup("ip-k8s-after", "ip-k8s", "repo1", "full"));
  Json after = WaitBackup("ip-k8s-after", "Complete", absl::Minutes(10));
  EXPECT_EQ(after.value("phase", ""), "Complete") << after.dump();
  // The same trigger again does nothing: the rows written since stay.
  ASSERT_EQ(Sql("ip-k8s", "insert into t values (2000);").exit_code, 0);
  absl::SleepFor(absl::Seconds(5));  // absence (no second restore): observable only by waiting
  CommandResult kept = Sql("ip-k8s", "select count(*) from t where id = 2000;");
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(kept.output)), "1") << kept.output;

  // Issue 33: a restore to the end of the archive asked right after a commit
  // keeps it. Its WAL is in a segment not yet full (archived only after
  // archive_timeout): the restore's Checking step has the primary close and
  // archive it before any member stops.
  ASSERT_EQ(Sql("ip-k8s", "insert into t values (3000);").exit_code, 0);
  ASSERT_TRUE(
      client()
          .Patch(
              kPostgres, ns(), "ip-k8s", kube::PatchType::kMerge,
              {{"metadata", {{"annotations", {{"postgres.quorum.dev/pgbackrest-restore", "r2"}}}}},
               {"spec", {{"backups", {{"pgbackrest", {{"restore", {{"target", nullptr}}}}}}}}}})
          .ok());
  Json second;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "ip-k8s");
        if (!c.ok()) return false;
        second = (*c)["status"]["backups"]["pgbackrest"].value("restore", Json::object());
        return second.value("id", "") == "r2" &&
               (second.value("phase", "") == "Succeeded" || second.value("phase", "") == "Failed");
      },
      absl::Minutes(10)))
      << "the second restore did not end: " << second.dump();
  ASSERT_EQ(second.value("phase", ""), "Succeeded") << second.dump();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("ip-k8s"); }, absl::Minutes(5)));
  CommandResult last = Sql("ip-k8s", "select count(*) from t where id in (2000, 3000);");
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(last.output)), "2")
      << "the rows committed right before the restore were lost: " << last.output;
}

// A volume repository added beside the S3 one of a running cluster: the
// members roll and archive to both (the volume through the repository host's
// TLS server, whose name the members' certificate gains), a backup Job
// mounts the claim beside the host, an in-place restore reads it through the
// host (a backup set it does not hold refused first, nothing stopped; then
// the set it does), and removing the repository stops the host but keeps its
// claim.
TEST_F(PgBackRestE2E, AVolumeRepositoryArchivesBacksUpAndRestoresInPlace) {
  OperatorProcess op(ns());
  op.Start();
  Json cluster = Cluster("vol", 2);
  ASSERT_TRUE(client().Create(kPostgres, ns(), cluster).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("vol"); }, absl::Minutes(8)))
      << "did not become Ready";
  CommandResult w = FirstSql("vol",
                             "create table if not exists t(id int primary key); insert into t "
                             "select generate_series(1,100) on conflict do nothing;");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  Json& pgbr = cluster["spec"]["backups"]["pgbackrest"];
  pgbr["repos"].push_back(
      {{"name", "repo2"},
       {"volume", {{"volumeClaimSpec", {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}});
  pgbr["global"]["repo2-retention-full"] = "2";
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "vol", kube::PatchType::kMerge,
                         {{"spec", {{"backups", {{"pgbackrest", pgbr}}}}}})
                  .ok());
  ASSERT_NO_FATAL_FAILURE(CreateBackup("vol-base", "vol", "repo2", "full"));
  Json full = WaitBackup("vol-base", "Complete", absl::Minutes(10));
  ASSERT_EQ(full.value("phase", ""), "Complete") << full.dump();
  EXPECT_FALSE(full["backup"]["repository"].value("walMax", "").empty()) << full.dump();
  // The claim is the host's, bound; only the members may reach the host.
  auto pvc = client().Get({"", "v1", "persistentvolumeclaims"}, ns(), "repo2-vol-repo-host-0");
  ASSERT_TRUE(pvc.ok()) << pvc.status();
  EXPECT_EQ((*pvc)["status"].value("phase", ""), "Bound");
  EXPECT_TRUE(
      client().Get({"networking.k8s.io", "v1", "networkpolicies"}, ns(), "vol-repo-host").ok());
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "vol");
        if (!c.ok()) return false;
        for (const Json& cond : (*c)["status"].value("conditions", Json::array())) {
          if (cond.value("type", "") == "RepoHostReady") return cond.value("status", "") == "True";
        }
        return false;
      },
      absl::Minutes(1)))
      << "RepoHostReady is not True";
  // Rows around T, archived to both repositories (archive_command succeeds
  // only when every repository has the segment).
  std::string target;
  ASSERT_NO_FATAL_FAILURE(target = RowsAroundATime("vol"));
  // Asks for an in-place restore from repo2 to `target` with backup set
  // `set` through `kubectl quorum restore` (issue 38), which waits for the
  // result: exit 0 Succeeded, 1 Failed. Returns the restore's status.
  auto restore_in_place = [&](const std::string& set, int exit_code) {
    CommandResult r = KubectlQuorum(
        ns(), {"restore", "vol", "--repo", "repo2", "--set", set, "--time", target, "--yes"},
        absl::Minutes(12));
    EXPECT_EQ(r.exit_code, exit_code) << r.output;
    auto c = client().Get(kPostgres, ns(), "vol");
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? (*c)["status"]["backups"]["pgbackrest"].value("restore", Json::object())
                  : Json::object();
  };
  // A set the repository does not hold is refused before anything stops:
  // pgBackRest (asked through the primary) names what it holds.
  const std::string label = full["backup"].value("label", "");
  ASSERT_FALSE(label.empty()) << full.dump();
  const std::vector<std::string> uids_before = PodUids("vol");
  Json refused = restore_in_place("20200101-000000F", 1);
  EXPECT_EQ(refused.value("phase", ""), "Failed") << refused.dump();
  EXPECT_NE(refused.value("message", "").find("is not in repo2, which holds " + label),
            std::string::npos)
      << refused.dump();
  EXPECT_EQ(PodUids("vol"), uids_before) << "a member stopped for a refused restore";
  // The set it does hold (the full backup, before the target) restores.
  Json restore = restore_in_place(label, 0);
  ASSERT_EQ(restore.value("phase", ""), "Succeeded") << restore.dump();
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("vol"); }, absl::Minutes(5)));
  ExpectRowsUpToTheTarget("vol", target);
  ASSERT_NO_FATAL_FAILURE(CreateBackup("vol-after", "vol", "repo2", "incr"));
  Json after = WaitBackup("vol-after", "Complete", absl::Minutes(10));
  EXPECT_EQ(after.value("phase", ""), "Complete") << after.dump();
  // Without the volume repository the host goes and its claim stays.
  Json repos = Json::array({cluster["spec"]["backups"]["pgbackrest"]["repos"][0]});
  ASSERT_TRUE(client()
                  .Patch(kPostgres, ns(), "vol", kube::PatchType::kMerge,
                         {{"spec",
                           {{"backups",
                             {{"pgbackrest",
                               {{"repos", repos},
                                {"restore", nullptr},
                                {"global", {{"repo2-retention-full", nullptr}}}}}}}}}})
                  .ok());
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        return absl::IsNotFound(
            client().Get({"apps", "v1", "statefulsets"}, ns(), "vol-repo-host").status());
      },
      absl::Minutes(2)))
      << "the repository host stayed";
  EXPECT_TRUE(
      client().Get({"", "v1", "persistentvolumeclaims"}, ns(), "repo2-vol-repo-host-0").ok());
}

TEST_F(PgBackRestE2E, ABackupDuringAFailoverEndsClearlyAndTheNextOneCompletes) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kPostgres, ns(), Cluster("fo", 2)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("fo"); }, absl::Minutes(8)))
      << "the PostgresCluster did not become Ready";
  // Enough data (~300 MB) that the copy takes a while.
  CommandResult w = FirstSql("fo",
                             "drop table if exists t; create table t(id int, v text); insert into "
                             "t select g, repeat(md5(g::text), 16) from generate_series(1, 500000) "
                             "g;");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  auto cluster = client().Get(kPostgres, ns(), "fo");
  ASSERT_TRUE(cluster.ok());
  const std::string primary = (*cluster)["status"].value("primary", "");
  ASSERT_FALSE(primary.empty());

  ASSERT_NO_FATAL_FAILURE(CreateBackup("during", "fo", "repo1", "full"));
  ASSERT_TRUE(testenv::Eventually(
      [&] {
        auto pods =
            client().List({"", "v1", "pods"}, ns(), {.label_selector = "job-name=during-backup"});
        if (!pods.ok()) return false;
        for (const Json& p : (*pods)["items"]) {
          if (p["status"].value("phase", "") != "Pending") return true;
        }
        return false;
      },
      absl::Minutes(3)))
      << "the backup's pod never started";
  ASSERT_TRUE(client().Delete({"", "v1", "pods"}, ns(), primary).ok());

  Json during = WaitBackup("during", "Complete", absl::Minutes(15));
  const std::string phase = during.value("phase", "");
  ASSERT_TRUE(phase == "Complete" || phase == "Failed") << during.dump();
  if (phase == "Failed") {
    bool says_why = false;
    for (const Json& c : during["conditions"]) {
      says_why = says_why || (c.value("type", "") == "Failed" &&
                              absl::StrContains(c.value("message", ""), "ERROR"));
    }
    EXPECT_TRUE(says_why) << during.dump();
  }
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("fo"); }, absl::Minutes(8)))
      << "the cluster did not recover from the failover";
  ASSERT_NO_FATAL_FAILURE(CreateBackup("after", "fo", "repo1", "full"));
  Json after = WaitBackup("after", "Complete", absl::Minutes(15));
  EXPECT_EQ(after.value("phase", ""), "Complete") << after.dump();
  std::printf("backup during the failover: %s\n", phase.c_str());
}

// Issue 33: a backup runs while a member is down. A replica frozen (SIGSTOP
// through hack/faults.sh) is not Ready, so neither is the cluster; a
// PostgresBackup still starts (a primary runs), talks only to the primary,
// and completes.
TEST_F(PgBackRestE2E, ABackupCompletesWhileAReplicaIsDown) {
  OperatorProcess op(ns());
  op.Start();
  ASSERT_TRUE(client().Create(kPostgres, ns(), Cluster("down", 2)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("down"); }, absl::Minutes(8)))
      << "the PostgresCluster did not become Ready";
  CommandResult w = FirstSql("down",
                             "drop table if exists t; create table t(id int); insert into t "
                             "select generate_series(1,1000);");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  auto cluster = client().Get(kPostgres, ns(), "down");
  ASSERT_TRUE(cluster.ok());
  const std::string primary = (*cluster)["status"].value("primary", "");
  ASSERT_FALSE(primary.empty());
  const std::string replica = primary == "down-main-0" ? "down-main-1" : "down-main-0";

  const testenv::ControlPlane* cp = testenv::GetControlPlane();
  auto signal = [&](const char* sig) {
    CommandResult r = RunCommand({std::string(QUORUM_SOURCE_DIR) + "/hack/faults.sh", "signal",
                                  cp->dir, ns(), replica, sig});
    EXPECT_EQ(r.exit_code, 0) << "faults.sh signal " << replica << " " << sig << ": " << r.output;
  };
  signal("STOP");
  absl::Cleanup thaw = [&] { signal("CONT"); };
  auto pod_ready = [&](const std::string& pod) {
    auto p = client().Get({"", "v1", "pods"}, ns(), pod);
    if (!p.ok()) return false;
    for (const Json& c : (*p)["status"].value("conditions", Json::array())) {
      if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
    }
    return false;
  };
  ASSERT_TRUE(
      testenv::Eventually([&] { return !pod_ready(replica) && !Ready("down"); }, absl::Minutes(2)))
      << "the frozen replica " << replica << " stayed Ready";

  ASSERT_NO_FATAL_FAILURE(CreateBackup("one-down", "down", "repo1", "full"));
  Json status = WaitBackup("one-down", "Complete", absl::Minutes(10));
  EXPECT_EQ(status.value("phase", ""), "Complete") << status.dump();
  EXPECT_FALSE(Ready("down")) << "the replica came back during the backup: nothing was proven";
  // The Job talked to the primary alone, and copied from it.
  auto job = client().Get({"batch", "v1", "jobs"}, ns(), "one-down-backup");
  ASSERT_TRUE(job.ok()) << job.status();
  std::map<std::string, std::string> env;
  for (const Json& e : (*job)["spec"]["template"]["spec"]["containers"][0]["env"]) {
    env[e.value("name", "")] = e.value("value", "");
  }
  EXPECT_TRUE(absl::StartsWith(env["PGBACKREST_PG1_HOST"], primary + ".")) << (*job).dump();
  EXPECT_EQ(env.count("PGBACKREST_PG2_HOST"), 0u) << "the frozen replica is a host";
  EXPECT_EQ(env["PGBACKREST_BACKUP_STANDBY"], "n");

  // Thawed, the replica catches up and the cluster is Ready again.
  std::move(thaw).Invoke();
  EXPECT_TRUE(testenv::Eventually([&] { return Ready("down"); }, absl::Minutes(5)))
      << "the cluster did not recover after the replica was thawed";
}

TEST_F(PgBackRestE2E, ASchedulesBackupsEveryMinute) {
  OperatorProcess op(ns());
  op.Start();
  Json pg = Cluster("cron", 1);
  pg["spec"]["backups"]["pgbackrest"]["repos"][0]["schedules"] = {{"full", "* * * * *"}};
  ASSERT_TRUE(client().Create(kPostgres, ns(), pg).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return Ready("cron"); }, absl::Minutes(8)))
      << "the PostgresCluster did not become Ready";
  // Two cron times, two backups, each complete, named by their cron time.
  std::set<std::string> complete;
  std::string seen;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto list = client().List(kBackups, ns(),
                                  {.label_selector = "postgres.quorum.dev/schedule=repo1-full"});
        if (!list.ok()) return false;
        seen = list->dump();
        for (const Json& b : (*list)["items"]) {
          const Json status = b.value("status", Json::object());
          if (status.value("phase", "") == "Complete") complete.insert(status["backup"]["label"]);
          if (status.value("phase", "") == "Failed") {
            ADD_FAILURE() << "a scheduled backup failed: " << status.dump();
            return true;
          }
        }
        return complete.size() >= 2;
      },
      absl::Minutes(6)))
      << seen;
  EXPECT_GE(complete.size(), 2u);
  // The cluster's status names its newest full backup.
  std::string newest;
  EXPECT_TRUE(testenv::Eventually(
      [&] {
        auto c = client().Get(kPostgres, ns(), "cron");
        if (!c.ok()) return false;
        const Json& repos = (*c)["status"]["backups"]["pgbackrest"]["repos"];
        if (!repos.is_array() || repos.empty()) return false;
        newest = repos[0]["full"].value("label", "");
        // The newest Complete one now (the schedule keeps going).
        auto list = client().List(kBackups, ns(),
                                  {.label_selector = "postgres.quorum.dev/schedule=repo1-full"});
        if (!list.ok()) return false;
        std::string want, want_stop;
        for (const Json& b : (*list)["items"]) {
          const Json status = b.value("status", Json::object());
          if (status.value("phase", "") != "Complete") continue;
          const std::string stop = status["backup"].value("stopTime", "");
          if (stop > want_stop) {
            want_stop = stop;
            want = status["backup"].value("label", "");
          }
        }
        return !newest.empty() && newest == want;
      },
      absl::Minutes(1)))
      << "status.backups: " << newest;
}

}  // namespace
}  // namespace quorum::e2e
