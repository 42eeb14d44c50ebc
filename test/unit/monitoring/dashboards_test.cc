// deploy/monitoring/dashboards: every file is a dashboard whose queries are
// non-empty PromQL on the `${datasource}` template variable, reading series
// of etcd, postgres_exporter and the operator only. Reads the files, writes
// nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test/monitoring/expressions.h"
#include "test/monitoring/metric_names.h"
#include "test/testmain/paths.h"
#include "test/unit/monitoring/metric_prefixes.h"

namespace quorum::monitoring {
namespace {

using Json = nlohmann::json;

constexpr char kDatasource[] = "${datasource}";

std::vector<std::string> DashboardFiles() {
  std::vector<std::string> out;
  const std::filesystem::path dir =
      std::filesystem::path(QUORUM_SOURCE_DIR) / "deploy/monitoring/dashboards";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Json Load(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

TEST(DashboardsTest, TheThreeDashboardsAreThere) {
  std::vector<std::string> names;
  for (const std::string& f : DashboardFiles()) {
    names.push_back(std::filesystem::path(f).filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"quorum-etcd.json", "quorum-operator.json",
                                             "quorum-postgresql.json"}));
}

TEST(DashboardsTest, EveryQueryIsNonEmptyPromQLOnTheDatasourceVariable) {
  for (const std::string& file : DashboardFiles()) {
    absl::StatusOr<std::vector<DashboardQuery>> queries = DashboardQueries(file);
    ASSERT_TRUE(queries.ok()) << queries.status();
    EXPECT_GE(queries->size(), 6u) << file;
    for (const DashboardQuery& q : *queries) {
      EXPECT_FALSE(q.expr.empty()) << file << ": panel " << q.panel;
      EXPECT_EQ(q.panel_datasource, kDatasource) << file << ": panel " << q.panel;
      EXPECT_EQ(q.target_datasource, kDatasource) << file << ": panel " << q.panel;
      const std::set<std::string> names = MetricNamesInPromQL(q.expr);
      EXPECT_FALSE(names.empty()) << file << ": " << q.expr;
      for (const std::string& name : names) {
        EXPECT_TRUE(HasKnownPrefix(name)) << file << ": " << name << " in " << q.expr;
      }
    }
  }
}

TEST(DashboardsTest, NestedRowsAreSearched) {
  absl::StatusOr<std::vector<std::string>> exprs = DashboardExpressions(
      std::string(QUORUM_SOURCE_DIR) + "/deploy/monitoring/dashboards/quorum-operator.json");
  ASSERT_TRUE(exprs.ok()) << exprs.status();
  // The backup and certificate panels live inside a collapsed row.
  EXPECT_TRUE(MetricNamesInPromQL(*exprs).count("quorum_certificate_expiry_timestamp_seconds"));
}

TEST(DashboardsTest, TemplateVariablesQueryTheDatasourceVariable) {
  for (const std::string& file : DashboardFiles()) {
    const Json d = Load(file);
    ASSERT_FALSE(d.is_discarded()) << file;
    EXPECT_GE(d.value("schemaVersion", 0), 39) << file;
    std::set<std::string> variables;
    for (const Json& v : d["templating"]["list"]) {
      variables.insert(v.value("name", ""));
      if (v.value("type", "") == "datasource") {
        EXPECT_EQ(v.value("query", ""), "prometheus") << file;
      } else {
        EXPECT_EQ(v["datasource"].value("uid", ""), kDatasource) << file << ": " << v.dump();
      }
    }
    EXPECT_TRUE(variables.count("datasource")) << file;
    EXPECT_TRUE(variables.count("namespace")) << file;
    if (file.find("operator") == std::string::npos) {
      EXPECT_TRUE(variables.count("cluster")) << file;
    }
  }
}

TEST(DashboardExpressionsTest, ReportsMissingAndMalformedFiles) {
  EXPECT_EQ(DashboardExpressions("/nonexistent/quorum.json").status().code(),
            absl::StatusCode::kNotFound);
  // A rule file is YAML, not JSON.
  EXPECT_EQ(
      DashboardExpressions(std::string(QUORUM_SOURCE_DIR) + "/deploy/monitoring/quorum-rules.yaml")
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace quorum::monitoring
