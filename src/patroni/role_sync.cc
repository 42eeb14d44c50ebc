#include "src/patroni/role_sync.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/patroni/role.h"

namespace quorum::patroni {
namespace {

const kube::GroupVersionResource kPods{"", "v1", "pods"};

}  // namespace

std::vector<LabelPatch> PlanRoleLabels(const std::vector<PodRoleLabel>& pods,
                                       const std::map<std::string, ObservedRole>& observed,
                                       std::string_view leader) {
  // The label each reachable member should carry; "" stands for no label
  // (plain strings: GCC 12 warns falsely on copies of optional<string>).
  std::map<std::string, std::string> desired;
  bool confirmed_primary = false;
  for (const PodRoleLabel& p : pods) {
    auto it = observed.find(p.pod);
    if (it == observed.end() || !it->second.reachable) continue;
    std::string label = RoleLabelValue(it->second.role).value_or("");
    if (label == kPrimaryLabelValue && !leader.empty() && p.pod != leader) label.clear();
    if (label == kPrimaryLabelValue) confirmed_primary = true;
    desired[p.pod] = std::move(label);
  }
  std::vector<LabelPatch> patches;
  for (const PodRoleLabel& p : pods) {
    const std::string have = p.label.value_or("");
    std::string want;
    if (auto it = desired.find(p.pod); it != desired.end()) {
      want = it->second;
    } else if (!(confirmed_primary && have == kPrimaryLabelValue)) {
      continue;  // unreachable: what it has is the best knowledge
    }            // else: an unreachable former primary loses its label
    if (want == have && p.label.has_value() == !want.empty()) continue;
    LabelPatch patch{p.pod, std::nullopt};
    if (!want.empty()) patch.label = want;
    patches.push_back(std::move(patch));
  }
  return patches;
}

absl::Status ApplyRoleLabels(kube::Client& client, std::string_view ns,
                             const std::vector<LabelPatch>& patches) {
  absl::Status first;
  for (const LabelPatch& p : patches) {
    nlohmann::json value = p.label ? nlohmann::json(*p.label) : nlohmann::json(nullptr);
    nlohmann::json patch = {{"metadata", {{"labels", {{std::string(kRoleLabel), value}}}}}};
    absl::StatusOr<kube::Json> r = client.Patch(kPods, ns, p.pod, kube::PatchType::kMerge, patch);
    if (!r.ok() && !absl::IsNotFound(r.status()) && first.ok()) first = r.status();
  }
  return first;
}

std::map<std::string, ObservedRole> ObserveRoles(
    RestClient& rest, const std::map<std::string, std::string>& api_urls) {
  std::map<std::string, ObservedRole> out;
  for (const auto& [pod, url] : api_urls) {
    absl::StatusOr<MemberStatus> s = rest.GetPatroni(url);
    out[pod] = s.ok() ? ObservedRole{true, s->role} : ObservedRole{false, ""};
  }
  return out;
}

std::string LeaderKey(std::string_view key_namespace, std::string_view scope) {
  const std::string raw = absl::StrCat("/", Absl(key_namespace), "/", Absl(scope), "/leader");
  std::string key;
  for (char c : raw) {
    if (c == '/' && !key.empty() && key.back() == '/') continue;
    key.push_back(c);
  }
  return key;
}

absl::StatusOr<std::string> LeaderFromEtcd(etcd::Client& etcd, std::string_view key_namespace,
                                           std::string_view scope) {
  absl::StatusOr<etcd::GetResponse> r = etcd.Get(LeaderKey(key_namespace, scope));
  if (!r.ok()) {
    if (absl::IsNotFound(r.status())) return std::string();
    return r.status();
  }
  return r->value.value_or("");
}

absl::StatusOr<std::vector<LabelPatch>> SyncRoleLabels(
    kube::Client& client, std::string_view ns, std::string_view selector, RestClient& rest,
    const std::map<std::string, std::string>& api_urls, std::string_view leader) {
  kube::ListOptions options;
  options.label_selector = std::string(selector);
  absl::StatusOr<kube::Json> list = client.List(kPods, ns, options);
  if (!list.ok()) return list.status();
  std::vector<PodRoleLabel> pods;
  for (const kube::Json& item : list->value("items", kube::Json::array())) {
    PodRoleLabel p;
    p.pod = item["metadata"].value("name", "");
    const kube::Json labels = item["metadata"].value("labels", kube::Json::object());
    if (auto it = labels.find(std::string(kRoleLabel)); it != labels.end() && it->is_string()) {
      p.label = it->get<std::string>();
    }
    pods.push_back(std::move(p));
  }
  std::vector<LabelPatch> patches = PlanRoleLabels(pods, ObserveRoles(rest, api_urls), leader);
  if (absl::Status s = ApplyRoleLabels(client, ns, patches); !s.ok()) return s;
  return patches;
}

}  // namespace quorum::patroni
