#include "src/patroni/role_sync.h"

#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"
#include "src/kube/resources.h"
#include "src/patroni/role.h"

namespace quorum::patroni {
namespace {

using kube::kPods;

}  // namespace

absl::Status ApplyRoleLabels(kube::Client& client, std::string_view ns,
                             const std::vector<LabelPatch>& patches) {
  absl::Status first;
  for (const LabelPatch& p : patches) {
    if (!first.ok() && p.label == kPrimaryLabelValue) continue;
    nlohmann::json value = p.label ? nlohmann::json(*p.label) : nlohmann::json(nullptr);
    nlohmann::json patch = {{"metadata", {{"labels", {{std::string(kRoleLabel), value}}}}}};
    absl::StatusOr<kube::Json> r = client.Patch(kPods, ns, p.pod, kube::PatchType::kMerge, patch);
    if (!r.ok() && !absl::IsNotFound(r.status()) && first.ok()) first = r.status();
  }
  return first;
}

std::map<std::string, absl::StatusOr<MemberStatus>> ProbeMembers(
    RestClient& rest, const std::map<std::string, Endpoint>& api_urls) {
  std::vector<std::pair<std::string, Endpoint>> members(api_urls.begin(), api_urls.end());
  std::vector<absl::StatusOr<MemberStatus>> seen(members.size(), absl::UnknownError("not asked"));
  {
    std::vector<std::jthread> threads;
    threads.reserve(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      threads.emplace_back([&, i] { seen[i] = rest.GetPatroni(members[i].second); });
    }
  }  // joined
  std::map<std::string, absl::StatusOr<MemberStatus>> out;
  for (size_t i = 0; i < members.size(); ++i) out.emplace(members[i].first, std::move(seen[i]));
  return out;
}

std::map<std::string, ObservedRole> ObserveRoles(RestClient& rest,
                                                 const std::map<std::string, Endpoint>& api_urls) {
  std::map<std::string, ObservedRole> out;
  for (const auto& [pod, s] : ProbeMembers(rest, api_urls)) {
    out[pod] = s.ok() ? ObservedRole{true, s->role, s->state, s->streaming_to} : ObservedRole{};
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
    const std::map<std::string, Endpoint>& api_urls, const std::optional<std::string>& leader) {
  kube::ListOptions options;
  options.label_selector = std::string(selector);
  absl::StatusOr<kube::Json> list = client.List(kPods, ns, options);
  if (!list.ok()) return list.status();
  std::vector<PodRoleLabel> pods;
  for (const kube::Json& item : list->value("items", kube::Json::array())) {
    PodRoleLabel p;
    p.pod = json_access::Str(json_access::At(item, {"metadata", "name"}));
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
