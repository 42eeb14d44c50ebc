// Issue 38, monitoring, on the real node: a real Prometheus (hack/build-tools.sh
// prometheus, from its Go module) scrapes the operator, an EtcdCluster's
// members and a PostgresCluster's exporter sidecars, found the way
// docs/monitoring.md tells users (kubernetes_sd, pods kept by the name of
// their metrics port), and evaluates deploy/monitoring/quorum-rules.yaml.
//   * every target is up (the operator electing a leader and serving
//     admission, as deployed); the exporter reaches PostgreSQL on both
//     members as quorum_monitor (pg_up 1) and sees one primary;
//   * every metric the dashboards and the rules read is one the targets
//     expose (their samples or their metadata);
//   * with the operator stopped (it would compact and defragment), filling
//     the etcd's 16 MiB quota until it refuses writes makes
//     QuorumEtcdDatabaseFull fire, and it was not firing before.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "test/e2e/e2e_env.h"
#include "test/e2e/postgres_e2e.h"
#include "test/monitoring/expressions.h"
#include "test/monitoring/metric_names.h"

namespace quorum::e2e {
namespace {

const std::string kRepo = QUORUM_SOURCE_DIR;

// The folder of the prometheus and promtool that hack/build-tools.sh builds.
std::string PrometheusBinDir() {
  CommandResult r =
      RunCommand({"bash", "-c", kRepo + "/hack/build-tools.sh prometheus 2>/dev/null | tail -1"},
                 absl::Minutes(20));
  return r.exit_code == 0 ? std::string(absl::StripAsciiWhitespace(r.output)) : "";
}

// The scrape configuration of docs/monitoring.md, narrowed to the test's
// namespace, with the admin kubeconfig for discovery and the operator (a
// host process here, not a pod) as a static target.
std::string PrometheusConfig(const std::string& ns, const std::string& kubeconfig,
                             const std::string& operator_address) {
  const std::string sd = absl::StrCat("    kubernetes_sd_configs:\n      - role: pod\n",
                                      "        kubeconfig_file: ", kubeconfig, "\n",
                                      "        namespaces: {names: [", ns, "]}\n");
  auto keep = [](const std::string& labels, const std::string& regex) {
    return absl::StrCat("      - source_labels: [", labels, "]\n        regex: ", regex,
                        "\n        action: keep\n");
  };
  auto copy = [](const std::string& from, const std::string& to) {
    return absl::StrCat("      - source_labels: [", from, "]\n        target_label: ", to, "\n");
  };
  const std::string common =
      copy("__meta_kubernetes_namespace", "namespace") + copy("__meta_kubernetes_pod_name", "pod");
  return absl::StrCat(
      "global: {scrape_interval: 2s, evaluation_interval: 2s}\n", "rule_files: [", kRepo,
      "/deploy/monitoring/quorum-rules.yaml]\n", "scrape_configs:\n",
      "  - job_name: quorum-operator\n    honor_labels: true\n",
      "    static_configs: [{targets: ['", operator_address, "'], labels: {namespace: ", ns,
      ", pod: operator}}]\n", "  - job_name: etcd\n", sd, "    relabel_configs:\n",
      keep("__meta_kubernetes_pod_label_app_kubernetes_io_name, "
           "__meta_kubernetes_pod_container_port_name",
           "etcd;metrics"),
      common, copy("__meta_kubernetes_pod_label_app_kubernetes_io_instance", "cluster"),
      "  - job_name: postgres-exporter\n", sd, "    relabel_configs:\n",
      keep("__meta_kubernetes_pod_labelpresent_postgres_quorum_dev_cluster, "
           "__meta_kubernetes_pod_container_port_name",
           "true;exporter"),
      common, copy("__meta_kubernetes_pod_label_postgres_quorum_dev_cluster", "cluster"));
}

class MonitoringE2E : public PostgresClusterE2E {
 protected:
  // GET `path` of the Prometheus API (curl in the node's names); its `data`,
  // or null when the request or the answer failed.
  Json Api(const std::string& path, const std::vector<std::string>& params = {}) {
    std::vector<std::string> argv = {"curl", "-sf", "--max-time",
                                     "10",   "-G",  absl::StrCat("http://", prometheus_, path)};
    for (const std::string& p : params) {
      argv.push_back("--data-urlencode");
      argv.push_back(p);
    }
    CommandResult r = NodeExec(argv, absl::Seconds(20));
    const Json answer = Json::parse(r.output, nullptr, false);
    if (r.exit_code != 0 || !answer.is_object() || answer.value("status", "") != "success") {
      return nullptr;
    }
    return answer["data"];
  }

  // The instant vector of `promql`; empty on failure.
  Json Query(const std::string& promql) {
    Json data = Api("/api/v1/query", {"query=" + promql});
    return data.is_object() && data["result"].is_array() ? data["result"] : Json::array();
  }

  // The value of the first sample of `promql`, or -1.
  double Scalar(const std::string& promql) {
    Json v = Query(promql);
    if (v.empty()) return -1;
    return std::stod(v[0]["value"][1].get<std::string>());
  }

  // Alerts named `name` in state `state` (firing, pending) for this namespace.
  int Alerts(const std::string& name, const std::string& state) {
    return static_cast<int>(Query(absl::StrCat("ALERTS{alertname=\"", name, "\",alertstate=\"",
                                               state, "\",namespace=\"", ns(), "\"}"))
                                .size());
  }

  // Every metric name the targets expose: the sampled ones and those of
  // their metadata (families without samples yet), with a histogram's and
  // a summary's series names.
  std::set<std::string> ExposedNames() {
    std::set<std::string> out;
    Json names = Api("/api/v1/label/__name__/values");
    if (names.is_array()) {
      for (const Json& n : names) out.insert(n.get<std::string>());
    }
    Json metadata = Api("/api/v1/metadata");
    if (metadata.is_object()) {
      for (const auto& [name, entries] : metadata.items()) {
        out.insert(name);
        const std::string type = entries.empty() ? "" : entries[0].value("type", "");
        if (type == "histogram" || type == "summary") {
          for (const char* suffix : {"_bucket", "_sum", "_count"}) out.insert(name + suffix);
        }
      }
    }
    return out;
  }

  std::string prometheus_;  // host:port of the Prometheus API
};

TEST_F(MonitoringE2E, PrometheusScrapesEveryTargetDashboardsReadRealMetricsAndAnAlertFires) {
  const std::string bin = PrometheusBinDir();
  ASSERT_FALSE(bin.empty()) << "hack/build-tools.sh prometheus failed";
  const int port = 19000 + getpid() % 500;
  const std::string operator_address = absl::StrCat("127.0.0.1:", port + 500);
  prometheus_ = absl::StrCat("127.0.0.1:", port);

  // The operator as deployed: electing a leader (on a Lease in the test's
  // namespace) and serving admission (with a certificate of the test's; no
  // webhook configuration sends it requests), so that their metrics exist.
  const std::string dir = absl::StrCat(testenv::GetControlPlane()->dir, "/prometheus-", ns());
  ASSERT_EQ(RunCommand({"mkdir", "-p", dir + "/data", dir + "/certs"}).exit_code, 0);
  CommandResult cert = RunCommand({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                   "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                                   "/CN=quorum-webhook", "-keyout", dir + "/certs/tls.key", "-out",
                                   dir + "/certs/tls.crt"});
  ASSERT_EQ(cert.exit_code, 0) << cert.output;
  OperatorProcess op(ns());
  op.Start({}, {"--metrics-bind-address=" + operator_address, "--leader-elect=true",
                "--leader-election-namespace=" + ns(), absl::StrCat("--webhook-port=", port + 250),
                "--webhook-cert-dir=" + dir + "/certs"});
  Json etcd = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
               {"kind", "EtcdCluster"},
               {"metadata", {{"name", "mon"}, {"namespace", ns()}}},
               {"spec",
                {{"replicas", 3},  // peers: the peer metrics exist
                 {"storage", {{"emptyDir", Json::object()}}},
                 {"options", {{"quota-backend-bytes", "16777216"}}}}}};  // 16 MiB
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  ASSERT_TRUE(client().Create(kPostgres, ns(), KubernetesPostgres("pg", 2)).ok());
  ASSERT_TRUE(testenv::Eventually([&] { return EtcdReady("mon", 3); }, absl::Minutes(5)))
      << "the EtcdCluster never got ready";
  ASSERT_TRUE(
      testenv::Eventually([&] { return Ready("pg") && PodReady("pg-main-1"); }, absl::Minutes(8)))
      << "the PostgresCluster never got ready: " << ReadyCondition("pg").dump();

  // The exporter's password comes from its Secret as a file, never from the
  // pod spec's environment.
  auto secret = client().Get(kSecrets, ns(), "pg-monitoring");
  ASSERT_TRUE(secret.ok()) << secret.status();
  auto pod = client().Get(kPods, ns(), "pg-main-0");
  ASSERT_TRUE(pod.ok());
  bool exporter = false;
  for (const Json& c : (*pod)["spec"]["containers"]) {
    if (c.value("name", "") != "exporter") continue;
    exporter = true;
    EXPECT_FALSE(absl::StrContains(c.dump(), "secretKeyRef")) << c.dump();
  }
  EXPECT_TRUE(exporter) << "no exporter container in pg-main-0";

  {
    std::ofstream config(dir + "/prometheus.yml");
    config << PrometheusConfig(ns(), testenv::GetControlPlane()->kubeconfig, operator_address);
  }
  HostProcess prometheus(dir + "/prometheus.log");
  prometheus.Spawn({bin + "/prometheus", "--config.file=" + dir + "/prometheus.yml",
                    "--storage.tsdb.path=" + dir + "/data", "--web.listen-address=" + prometheus_});

  // Up: the operator, the etcd member, both exporters; the exporters reach
  // PostgreSQL and see exactly one primary.
  const std::vector<std::pair<std::string, double>> healthy = {
      {"sum(up{job=\"quorum-operator\"})", 1},
      {"sum(up{job=\"etcd\"})", 3},
      {"sum(leader_election_master_status{job=\"quorum-operator\"})", 1},
      {"sum(up{job=\"postgres-exporter\"})", 2},
      {"sum(pg_up{job=\"postgres-exporter\"})", 2},
      {"count(pg_replication_is_replica{job=\"postgres-exporter\"} == 0)", 1},
      {"count(etcd_server_has_leader{job=\"etcd\"} == 1)", 3}};
  for (const auto& [promql, want] : healthy) {
    EXPECT_TRUE(testenv::Eventually([&] { return Scalar(promql) == want; }, absl::Minutes(2)))
        << promql << " is " << Scalar(promql) << ", want " << want
        << "; targets: " << Api("/api/v1/targets").dump().substr(0, 4000)
        << "; log: " << FileText(dir + "/prometheus.log").substr(0, 3000);
  }
  EXPECT_EQ(Alerts("QuorumEtcdDatabaseFull", "firing"), 0);
  EXPECT_EQ(
      Alerts("QuorumPostgresNoPrimary", "pending") + Alerts("QuorumPostgresNoPrimary", "firing"),
      0);

  // Every metric the dashboards and the rules read is exposed.
  std::vector<std::string> exprs;
  for (const char* d : {"quorum-etcd", "quorum-postgresql", "quorum-operator"}) {
    auto e = monitoring::DashboardExpressions(
        absl::StrCat(kRepo, "/deploy/monitoring/dashboards/", d, ".json"));
    ASSERT_TRUE(e.ok()) << e.status();
    exprs.insert(exprs.end(), e->begin(), e->end());
  }
  auto rules = monitoring::RuleExpressions(kRepo + "/deploy/monitoring/quorum-rules.yaml");
  ASSERT_TRUE(rules.ok()) << rules.status();
  exprs.insert(exprs.end(), rules->begin(), rules->end());
  const std::set<std::string> read = monitoring::MetricNamesInPromQL(exprs);
  std::set<std::string> exposed = ExposedNames();
  std::vector<std::string> missing;
  for (const std::string& name : read) {
    if (!exposed.contains(name) && name != "up" && name != "ALERTS") missing.push_back(name);
  }
  EXPECT_TRUE(missing.empty()) << "read by the dashboards or rules but exposed by no target: "
                               << absl::StrJoin(missing, ", ") << " (" << read.size()
                               << " names read, " << exposed.size() << " exposed)";

  // The operator would compact, defragment and disarm NOSPACE: without it,
  // the full database stays full.
  op.Stop();
  const CommandResult last = FillUntilNoSpace(ns(), "mon");
  ASSERT_TRUE(absl::StrContains(last.output, "database space exceeded"))
      << "etcd never refused a write for space: " << last.output;
  const absl::Time full = absl::Now();
  // One alert per member whose database is that full (the members' sizes
  // differ by their history and compactions).
  ASSERT_TRUE(testenv::Eventually([&] { return Alerts("QuorumEtcdDatabaseFull", "firing") >= 1; },
                                  absl::Minutes(4)))
      << "QuorumEtcdDatabaseFull did not fire; size/quota: "
      << Query("etcd_mvcc_db_total_size_in_bytes / etcd_server_quota_backend_bytes").dump();
  std::cout << "monitoring: QuorumEtcdDatabaseFull fired " << absl::Now() - full
            << " after etcd refused a write for space (the rule's for: 1m)\n";
  const Json alert =
      Query(absl::StrCat("ALERTS{alertname=\"QuorumEtcdDatabaseFull\",namespace=\"", ns(), "\"}"));
  ASSERT_FALSE(alert.empty());
  for (const Json& a : alert) {
    EXPECT_EQ(a["metric"].value("cluster", ""), "mon") << alert.dump();
    EXPECT_EQ(a["metric"].value("severity", ""), "critical") << alert.dump();
    EXPECT_TRUE(absl::StartsWith(a["metric"].value("pod", ""), "mon-")) << alert.dump();
  }
  prometheus.Stop();
}

}  // namespace
}  // namespace quorum::e2e
