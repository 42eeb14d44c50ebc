// The fixture of the PostgresCluster end-to-end tests (postgrescluster_test.cc,
// postgres_upgrade_test.cc): the CRD installed, and helpers that read the
// cluster's status, run SQL and write the manifests the tests start from.
#ifndef QUORUM_TEST_E2E_POSTGRES_E2E_H_
#define QUORUM_TEST_E2E_POSTGRES_E2E_H_

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/e2e/e2e_env.h"
#include "test/testmain/paths.h"

namespace quorum::e2e {

inline const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
inline const kube::GroupVersionResource kPostgres{"postgres.quorum.dev", "v1alpha1",
                                                  "postgresclusters"};
inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const kube::GroupVersionResource kClaims{"", "v1", "persistentvolumeclaims"};

class PostgresClusterE2E : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    absl::Status s =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) +
                                          "/deploy/crds/postgres.quorum.dev_postgresclusters.yaml");
    ASSERT_TRUE(s.ok()) << s;
  }

  bool Ready(const std::string& name) { return ReadyCondition(name).value("status", "") == "True"; }

  // Condition `type` of object `name` of `gvr` in the test's namespace; an
  // empty object when the object or the condition is missing.
  Json Condition(const kube::GroupVersionResource& gvr, const std::string& name,
                 const std::string& type) {
    auto o = client().Get(gvr, ns(), name);
    if (!o.ok()) return Json::object();
    for (const Json& cond : o->value("status", Json::object()).value("conditions", Json::array()))
      if (cond.value("type", "") == type) return cond;
    return Json::object();
  }

  // The Ready condition of PostgresCluster `name`; an empty object when none.
  Json ReadyCondition(const std::string& name) { return Condition(kPostgres, name, "Ready"); }

  // Pod `pod`'s Ready condition is True. Not proof that a replica follows
  // the primary: the kubelet keeps a pod Ready for up to three failed probes
  // (15 s) — an old primary right after a switchover still is. See
  // FollowsPrimary.
  bool PodReady(const std::string& pod) {
    return Condition(kPods, pod, "Ready").value("status", "") == "True";
  }

  // Asked on the primary of PostgresCluster `cluster` (its Service, as the
  // superuser): member `member` streams from it and has replayed past its
  // last checkpoint, so it is on the primary's timeline. Until then the
  // member cannot take over without what the primary acknowledged, and with
  // check_timeline it refuses to (docs/operations.md).
  bool FollowsPrimary(const std::string& cluster, const std::string& member) {
    CommandResult r =
        Sql(cluster + "-superuser", "",
            "select count(*) from pg_stat_replication where application_name = '" + member +
                "' and state = 'streaming' and replay_lsn >= "
                "(select redo_lsn from pg_control_checkpoint());");
    return r.exit_code == 0 && absl::StripAsciiWhitespace(r.output) == "1";
  }

  // The values of `acknowledged` missing from `table` (one int column `v`),
  // read through `host` as `secret`'s user (retried for a minute); nullopt,
  // with the failure recorded, when it could not be read.
  std::optional<std::vector<int>> MissingRows(const std::string& secret, const std::string& host,
                                              const std::string& table,
                                              const std::vector<int>& acknowledged) {
    CommandResult rows = SqlWithin(secret, host, "select v from " + table + " order by v;");
    if (rows.exit_code != 0) {
      ADD_FAILURE() << "reading " << table << ": " << rows.output;
      return std::nullopt;
    }
    std::set<int> present;
    for (absl::string_view line : absl::StrSplit(rows.output, '\n', absl::SkipWhitespace())) {
      int v = 0;
      if (absl::SimpleAtoi(line, &v)) present.insert(v);
    }
    std::vector<int> lost;
    for (int v : acknowledged) {
      if (!present.contains(v)) lost.push_back(v);
    }
    return lost;
  }

  // Every one of `acknowledged` is in `table` (MissingRows).
  void ExpectAcknowledgedRows(const std::string& secret, const std::string& host,
                              const std::string& table, const std::vector<int>& acknowledged) {
    std::optional<std::vector<int>> lost = MissingRows(secret, host, table, acknowledged);
    ASSERT_TRUE(lost.has_value());
    EXPECT_TRUE(lost->empty()) << "acknowledged rows lost: " << absl::StrJoin(*lost, ", ");
  }

  std::string Primary(const std::string& name) {
    auto c = client().Get(kPostgres, ns(), name);
    if (!c.ok()) return "";
    const Json& st = c->value("status", Json::object());
    if (st.contains("primary") && st["primary"].is_string()) return st["primary"];
    return "";
  }

  // The members `patronictl list` shows when run plainly (no -c: the image
  // names the configuration file) in `pod`'s database container, name ->
  // role; empty when it fails (the output goes to the test's log).
  std::map<std::string, std::string> PatronictlMembers(const std::string& pod) {
    CommandResult r = Kubectl(
        ns(), {"exec", pod, "-c", "database", "--", "patronictl", "list", "--format", "json"});
    std::map<std::string, std::string> out;
    const Json list = Json::parse(r.output, nullptr, false);
    if (r.exit_code != 0 || !list.is_array()) {
      ADD_FAILURE() << "patronictl list in " << pod << ": " << r.output;
      return out;
    }
    for (const Json& m : list) out[m.value("Member", "")] = m.value("Role", "");
    return out;
  }

  // psql with the superuser's URI against `host` (a Service name), over TLS
  // verified by the Secret's CA (the URI says sslmode=verify-full).
  CommandResult Sql(const std::string& secret, const std::string& host, const std::string& sql) {
    return Psql(client(), ns(), secret, host, sql, absl::Seconds(20));
  }

  // Sql until it succeeds, for up to `within` (a Service that selects its pod
  // by label follows the pod's readiness with a lag); the last attempt.
  CommandResult SqlWithin(const std::string& secret, const std::string& host,
                          const std::string& sql, absl::Duration within = absl::Minutes(1)) {
    CommandResult r;
    testenv::Eventually(
        [&] {
          r = Sql(secret, host, sql);
          return r.exit_code == 0;
        },
        within);
    return r;
  }

  // An EtcdCluster `name` of `replicas` members on emptyDir.
  void CreateEtcdCluster(const std::string& name, int replicas) {
    ASSERT_TRUE(
        client()
            .Create(
                kEtcdClusters, ns(),
                {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                 {"kind", "EtcdCluster"},
                 {"metadata", {{"name", name}, {"namespace", ns()}}},
                 {"spec", {{"replicas", replicas}, {"storage", {{"emptyDir", Json::object()}}}}}})
            .ok());
  }

  // True once EtcdCluster `name` reports `replicas` ready members.
  bool EtcdReady(const std::string& name, int replicas) {
    auto c = client().Get(kEtcdClusters, ns(), name);
    if (!c.ok()) return false;
    return c->value("status", Json::object()).value("readyReplicas", 0) == replicas;
  }

  // A PostgresCluster `name` of `replicas` instances (1Gi claims) on the
  // kubernetes DCS.
  Json KubernetesPostgres(const std::string& name, int replicas) {
    return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
            {"kind", "PostgresCluster"},
            {"metadata", {{"name", name}, {"namespace", ns()}}},
            {"spec",
             {{"postgresVersion", 15},
              {"instances",
               Json::array({{{"name", "main"},
                             {"replicas", replicas},
                             {"dataVolumeClaimSpec",
                              {{"accessModes", Json::array({"ReadWriteOnce"})},
                               {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  }

  // The same on the etcd DCS of EtcdCluster `dcs`; `patroni` fields are
  // merged over the DCS.
  Json EtcdPostgres(const std::string& name, int replicas, const std::string& dcs,
                    const Json& patroni = Json::object()) {
    Json p = {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", dcs}}}}}}}};
    p.update(patroni);
    Json pg = KubernetesPostgres(name, replicas);
    pg["spec"]["patroni"] = p;
    return pg;
  }
};

}  // namespace quorum::e2e

#endif  // QUORUM_TEST_E2E_POSTGRES_E2E_H_
