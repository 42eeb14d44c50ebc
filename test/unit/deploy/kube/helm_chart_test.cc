// charts/quorum-operator: `helm lint` passes, and `helm template` with the
// default values renders the same objects as deploy/quorum.yaml (compared as
// JSON, so formatting and comments do not matter; the bundle's Namespace is
// the one object the chart leaves to `--create-namespace`). Values change
// what they promise to. helm comes from hack/build-tools.sh.
#include <gtest/gtest.h>

#include <map>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "test/unit/deploy/kube/manifest_files.h"

namespace quorum::deploytest {
namespace {

class HelmChartTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    CommandResult tools = RunCommand(Repo("hack/build-tools.sh") + " 2>/dev/null");
    ASSERT_EQ(tools.exit_code, 0) << "hack/build-tools.sh failed";
    // The last line is the bin folder.
    std::vector<std::string> lines =
        absl::StrSplit(absl::StripTrailingAsciiWhitespace(tools.output), '\n');
    helm_ = new std::string(lines.back() + "/helm");
  }

  // Renders the chart as release "quorum" in quorum-system with `args`.
  std::vector<Json> Template(const std::string& args = "") {
    CommandResult r = RunCommand(
        *helm_ + " template quorum " + Repo("charts/quorum-operator") +
        " --namespace quorum-system --include-crds --kube-version 1.36.3 " + args + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.exit_code == 0 ? ParseDocuments(r.output) : std::vector<Json>{};
  }

  static std::map<std::string, Json> ByKey(const std::vector<Json>& docs) {
    std::map<std::string, Json> out;
    for (const Json& d : docs) out[KeyOf(d)] = d;
    return out;
  }

  static std::string* helm_;
};

std::string* HelmChartTest::helm_ = nullptr;

TEST_F(HelmChartTest, LintPasses) {
  CommandResult r =
      RunCommand(*helm_ + " lint --strict " + Repo("charts/quorum-operator") + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(HelmChartTest, DefaultValuesRenderTheBundlesObjects) {
  std::map<std::string, Json> bundle = ByKey(LoadDocuments(Repo("deploy/quorum.yaml")));
  bundle.erase("Namespace /quorum-system");
  const std::map<std::string, Json> chart = ByKey(Template());
  for (const auto& [key, object] : bundle) {
    auto it = chart.find(key);
    if (it == chart.end()) {
      ADD_FAILURE() << "the chart does not render " << key;
      continue;
    }
    EXPECT_EQ(it->second, object) << key << "\nchart:  " << it->second.dump()
                                  << "\nbundle: " << object.dump();
  }
  for (const auto& [key, object] : chart) {
    EXPECT_TRUE(bundle.count(key)) << "the bundle lacks " << key;
  }
}

TEST_F(HelmChartTest, WatchedNamespacesBindTheControllersPerNamespace) {
  const std::vector<Json> docs = Template("--set 'watchNamespaces={db,etcd}'");
  const std::map<std::string, Json> chart = ByKey(docs);
  EXPECT_TRUE(chart.count("RoleBinding db/quorum-operator-etcdcluster"));
  EXPECT_TRUE(chart.count("RoleBinding etcd/quorum-operator-etcdcluster"));
  EXPECT_FALSE(chart.count("ClusterRoleBinding /quorum-operator-etcdcluster"));
  EXPECT_TRUE(chart.count("ClusterRoleBinding /quorum-operator-webhooks"))
      << "webhook configurations are cluster-scoped";
  // Nodes are cluster-scoped too: a RoleBinding cannot grant them, and without
  // them the operator's caches never sync (found by the helm e2e install).
  EXPECT_TRUE(chart.count("ClusterRoleBinding /quorum-operator-cluster"))
      << "the Node informer needs a cluster-wide binding";
  const Json c = chart.at(
      "Deployment quorum-system/quorum-operator")["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["env"][1], Json::parse(R"({"name": "WATCH_NAMESPACES", "value": "db,etcd"})"));
  for (const char* kind : {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}) {
    for (const Json& d : docs) {
      if (d.value("kind", "") != kind) continue;
      for (const Json& w : d["webhooks"]) {
        EXPECT_EQ(w["namespaceSelector"]["matchExpressions"][0]["values"],
                  Json::array({"db", "etcd"}));
      }
    }
  }
}

TEST_F(HelmChartTest, ValuesSetImageReplicasResourcesLogFormatAndServiceMonitor) {
  const std::map<std::string, Json> chart = ByKey(Template(
      "--set image.repository=registry.example/quorum --set image.tag=1.2.3 --set replicas=3 "
      "--set resources.requests.cpu=250m --set logFormat=text "
      "--set metrics.serviceMonitor.enabled=true"));
  const Json dep = chart.at("Deployment quorum-system/quorum-operator");
  const Json c = dep["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["image"], "registry.example/quorum:1.2.3");
  EXPECT_EQ(c["env"][0], Json::parse(R"({"name": "QUORUM_OPERATOR_IMAGE",
                                         "value": "registry.example/quorum:1.2.3"})"))
      << "backup Jobs run the operator's own image";
  EXPECT_EQ(dep["spec"]["replicas"], 3);
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "250m");
  bool text = false;
  for (const Json& a : c["args"]) text |= a == "--log-format=text";
  EXPECT_TRUE(text);
  ASSERT_TRUE(chart.count("ServiceMonitor quorum-system/quorum-operator"));
  const Json monitor = chart.at("ServiceMonitor quorum-system/quorum-operator")["spec"];
  EXPECT_EQ(monitor["endpoints"][0]["port"], "metrics");
  // The job and labels deploy/monitoring's rules select (docs/monitoring.md).
  EXPECT_EQ(monitor["jobLabel"], "app.kubernetes.io/name");
  EXPECT_EQ(monitor["endpoints"][0]["honorLabels"], true);
  EXPECT_FALSE(ByKey(Template()).count("ServiceMonitor quorum-system/quorum-operator"));
}

// The Prometheus Operator's objects for the clusters (docs/monitoring.md):
// rendered when the cluster serves monitoring.coreos.com/v1 (auto) or when
// asked, with the job names and labels deploy/monitoring's rules select, and
// the rules themselves in a PrometheusRule.
TEST_F(HelmChartTest, PodMonitorsAndRulesWhenThePrometheusOperatorIsThere) {
  const char* kEtcd = "PodMonitor quorum-system/quorum-etcd";
  const char* kExporter = "PodMonitor quorum-system/quorum-postgres-exporter";
  const char* kRule = "PrometheusRule quorum-system/quorum";
  EXPECT_FALSE(ByKey(Template()).count(kEtcd)) << "auto, without the API";
  EXPECT_FALSE(ByKey(Template("--api-versions monitoring.coreos.com/v1/PodMonitor "
                              "--set metrics.podMonitors.enabled=false"))
                   .count(kEtcd));
  for (const char* args : {"--api-versions monitoring.coreos.com/v1/PodMonitor",
                           "--set metrics.podMonitors.enabled=true"}) {
    SCOPED_TRACE(args);
    const std::map<std::string, Json> chart = ByKey(Template(args));
    ASSERT_TRUE(chart.count(kEtcd) && chart.count(kExporter) && chart.count(kRule));
    const Json etcd = chart.at(kEtcd)["spec"];
    EXPECT_EQ(etcd["jobLabel"], "app.kubernetes.io/name");
    EXPECT_EQ(etcd["namespaceSelector"]["any"], true);
    EXPECT_EQ(etcd["podMetricsEndpoints"][0]["port"], "metrics");
    EXPECT_EQ(etcd["podMetricsEndpoints"][0]["relabelings"][0]["targetLabel"], "cluster");
    const Json exporter = chart.at(kExporter)["spec"];
    EXPECT_EQ(exporter["podMetricsEndpoints"][0]["port"], "exporter");
    EXPECT_EQ(exporter["podMetricsEndpoints"][0]["relabelings"][0],
              Json::parse(R"({"targetLabel": "job", "replacement": "postgres-exporter"})"));
    const Json groups = chart.at(kRule)["spec"]["groups"];
    ASSERT_TRUE(groups.is_array());
    size_t alerts = 0;
    for (const Json& g : groups) alerts += g["rules"].size();
    EXPECT_GE(alerts, 18u);
    // The alerts' templates reach Prometheus as written, not expanded by Helm.
    EXPECT_NE(groups.dump().find("{{ $labels.namespace }}"), std::string::npos);
  }
}

}  // namespace
}  // namespace quorum::deploytest
