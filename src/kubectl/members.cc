#include "src/kubectl/members.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "src/kube/resources.h"

namespace quorum::kubectl {

using Json = nlohmann::json;

std::string MemberSelector(const FoundCluster& cluster) {
  const Json& obj = cluster.object;
  const std::string name = obj.value("metadata", Json::object()).value("name", "");
  if (cluster.kind == Kind::kEtcdCluster) {
    const Json status = obj.value("status", Json::object());
    auto it = status.find("selector");
    if (it != status.end() && it->is_string() && !it->get<std::string>().empty()) {
      return it->get<std::string>();
    }
    return absl::StrCat("app.kubernetes.io/name=etcd,app.kubernetes.io/instance=", name);
  }
  return absl::StrCat(std::string(api::kClusterLabel), "=", name);
}

absl::StatusOr<Json> FetchMemberPods(kube::Client& client, const std::string& ns,
                                     const FoundCluster& cluster) {
  absl::StatusOr<Json> list =
      client.ListAll(kube::kPods, ns, {.label_selector = MemberSelector(cluster)});
  if (!list.ok()) return list.status();
  Json items = list->value("items", Json::array());
  if (!items.is_array()) items = Json::array();
  auto name = [](const Json& p) {
    return p.value("metadata", Json::object()).value("name", std::string());
  };
  std::sort(items.begin(), items.end(),
            [&](const Json& a, const Json& b) { return name(a) < name(b); });
  return items;
}

}  // namespace quorum::kubectl
