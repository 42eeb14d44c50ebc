#include "test/monitoring/expressions.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace quorum::monitoring {
namespace {

using Json = nlohmann::json;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string DatasourceOf(const Json& owner) {
  auto it = owner.find("datasource");
  if (it == owner.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return it->value("uid", "");
  return "";
}

// Appends the queries of `panels` and, depth first, of the panels of rows
// among them (a collapsed row holds its panels itself).
void CollectQueries(const Json& panels, std::vector<DashboardQuery>& out) {
  for (const Json& panel : panels) {
    if (!panel.is_object()) continue;
    const std::string title = panel.value("title", "");
    const std::string panel_ds = DatasourceOf(panel);
    if (auto targets = panel.find("targets"); targets != panel.end() && targets->is_array()) {
      for (const Json& target : *targets) {
        if (!target.is_object()) continue;
        const Json& expr = target.value("expr", Json(""));
        out.push_back({.panel = title,
                       .expr = expr.is_string() ? expr.get<std::string>() : "",
                       .panel_datasource = panel_ds,
                       .target_datasource = DatasourceOf(target)});
      }
    }
    if (auto nested = panel.find("panels"); nested != panel.end() && nested->is_array()) {
      CollectQueries(*nested, out);
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<DashboardQuery>> DashboardQueries(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  const Json dashboard = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (dashboard.is_discarded()) return absl::InvalidArgumentError(path + ": not JSON");
  auto panels = dashboard.is_object() ? dashboard.find("panels") : dashboard.end();
  if (!dashboard.is_object() || panels == dashboard.end() || !panels->is_array()) {
    return absl::InvalidArgumentError(path + ": no panels array");
  }
  std::vector<DashboardQuery> out;
  CollectQueries(*panels, out);
  return out;
}

absl::StatusOr<std::vector<std::string>> DashboardExpressions(const std::string& path) {
  absl::StatusOr<std::vector<DashboardQuery>> queries = DashboardQueries(path);
  if (!queries.ok()) return queries.status();
  std::vector<std::string> out;
  for (DashboardQuery& q : *queries) out.push_back(std::move(q.expr));
  return out;
}

absl::StatusOr<std::vector<std::string>> RuleExpressions(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> out;
  try {  // yaml-cpp reports malformed YAML and bad conversions by throwing
    const YAML::Node file = YAML::Load(*text);
    const YAML::Node groups = file.IsMap() ? file["groups"] : YAML::Node();
    if (!groups.IsSequence()) return absl::InvalidArgumentError(path + ": no groups list");
    for (const YAML::Node& group : groups) {
      for (const YAML::Node& rule : group["rules"]) {
        const YAML::Node expr = rule["expr"];
        if (!expr.IsScalar()) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": a rule of group ", group["name"].as<std::string>(""), " has no expr"));
        }
        out.push_back(expr.as<std::string>());
      }
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", e.what()));
  }
  return out;
}

}  // namespace quorum::monitoring
