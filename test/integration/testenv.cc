#include "test/integration/testenv.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace quorum::testenv {
namespace {

// Reads `export KEY=VALUE` lines (values possibly quoted) of DIR/env.
std::map<std::string, std::string> ReadEnvFile(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    absl::ConsumePrefix(&l, "export ");
    const size_t eq = l.find('=');
    if (eq == absl::string_view::npos) continue;
    absl::string_view v = l.substr(eq + 1);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
      v = v.substr(1, v.size() - 2);
    }
    out[std::string(l.substr(0, eq))] = std::string(v);
  }
  return out;
}

std::string NamespaceFor(const ::testing::TestInfo* info) {
  std::string base =
      absl::AsciiStrToLower(absl::StrCat(info->test_suite_name(), "-", info->name()));
  for (char& c : base) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) c = '-';
  }
  if (base.size() > 40) base.resize(40);
  static std::mt19937 rng{std::random_device{}()};
  return absl::StrCat("t-", base, "-", std::to_string(rng() % 100000));
}

}  // namespace

const ControlPlane* GetControlPlane() {
  static const ControlPlane* cp = []() -> const ControlPlane* {
    const char* dir = std::getenv("QUORUM_CONTROLPLANE_DIR");
    if (dir == nullptr || *dir == '\0') return nullptr;
    auto* out = new ControlPlane();
    out->dir = dir;
    std::map<std::string, std::string> env = ReadEnvFile(absl::StrCat(dir, "/env"));
    out->kubeconfig =
        env.count("KUBECONFIG") ? env["KUBECONFIG"] : absl::StrCat(dir, "/kubeconfig");
    out->etcd_endpoint = env["QUORUM_ETCD_ENDPOINT"];
    out->bin_dir = env["QUORUM_BIN"];
    absl::StatusOr<kube::RestConfig> config = kube::LoadKubeconfigFile(out->kubeconfig);
    if (!config.ok()) {
      ADD_FAILURE() << "cannot load " << out->kubeconfig << ": " << config.status();
      return nullptr;
    }
    out->config = *std::move(config);
    out->config.qps = 0;  // tests are not throttled client-side
    return out;
  }();
  if (cp == nullptr) {
    ADD_FAILURE() << "no test control plane: run through ctest (the controlplane fixture starts "
                     "it) or set QUORUM_CONTROLPLANE_DIR to a folder made by "
                     "hack/controlplane.sh start";
  }
  return cp;
}

namespace {

kube::Json YamlNodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      kube::Json out = kube::Json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = YamlNodeToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      kube::Json out = kube::Json::array();
      for (const auto& item : node) out.push_back(YamlNodeToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string v = node.Scalar();
      if (node.Tag() == "!") return v;  // quoted
      if (v == "true" || v == "false") return v == "true";
      if (v == "null" || v == "~") return nullptr;
      static const std::regex kInt("-?[0-9]+"), kFloat("-?[0-9]+\\.[0-9]+([eE][-+]?[0-9]+)?");
      if (std::regex_match(v, kInt)) return std::stoll(v);
      if (std::regex_match(v, kFloat)) return std::stod(v);
      return v;
    }
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<kube::Json> LoadYamlAsJson(const std::string& path) {
  try {
    return YamlNodeToJson(YAML::LoadFile(path));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(path + ": " + e.what());
  }
}

absl::Status InstallCrd(kube::Client& client, const std::string& path) {
  absl::StatusOr<kube::Json> crd = LoadYamlAsJson(path);
  if (!crd.ok()) return crd.status();
  const kube::GroupVersionResource crds{"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
  auto applied = client.Apply(crds, "", *crd, {.field_manager = "quorum-test", .force = true});
  if (!applied.ok()) return applied.status();
  const std::string name = (*crd)["metadata"]["name"];
  const std::string group = (*crd)["spec"]["group"];
  const std::string plural = (*crd)["spec"]["names"]["plural"];
  const std::string version = (*crd)["spec"]["versions"][0]["name"];
  const bool ok = Eventually(
      [&] {
        auto got = client.Get(crds, "", name);
        if (!got.ok()) return false;
        bool established = false;
        for (const kube::Json& c : (*got)["status"].value("conditions", kube::Json::array())) {
          established |= c["type"] == "Established" && c["status"] == "True";
        }
        return established && client.List({group, version, plural}, "default").ok();
      },
      absl::Seconds(60));
  return ok ? absl::OkStatus() : absl::DeadlineExceededError("CRD " + name + " not established");
}

bool Eventually(const std::function<bool()>& condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (condition()) return true;
    if (absl::Now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void IntegrationTest::SetUp() {
  cp_ = GetControlPlane();
  ASSERT_NE(cp_, nullptr);
  auto client = kube::Client::Create(cp_->config);
  ASSERT_TRUE(client.ok()) << client.status();
  client_ = *std::move(client);
  ns_ = NamespaceFor(::testing::UnitTest::GetInstance()->current_test_info());
  auto created =
      client_->Create({"", "v1", "namespaces"}, "",
                      {{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", ns_}, {"labels", {{"quorum.dev/test", "true"}}}}}});
  ASSERT_TRUE(created.ok()) << created.status();
}

void IntegrationTest::TearDown() {
  if (client_ && !ns_.empty() && !HasFailure()) {
    (void)client_->Delete({"", "v1", "namespaces"}, "", ns_,
                          {.propagation = kube::PropagationPolicy::kBackground});
  }
}

}  // namespace quorum::testenv
