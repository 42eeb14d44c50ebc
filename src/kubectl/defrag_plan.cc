#include "src/kubectl/defrag_plan.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace quorum::kubectl {

using Json = nlohmann::json;

absl::StatusOr<EndpointStatus> ParseEndpointStatus(std::string_view text) {
  const Json doc = Json::parse(text, nullptr, false);
  if (!doc.is_array() || doc.empty() || !doc[0].is_object()) {
    return absl::InvalidArgumentError("endpoint status: want etcdctl's JSON array");
  }
  const Json status = doc[0].value("Status", Json::object());
  const Json header = status.value("header", Json::object());
  auto number = [](const Json& obj, const char* key) -> const Json* {
    auto it = obj.find(key);
    return it != obj.end() && it->is_number_integer() ? &*it : nullptr;
  };
  const Json* id = number(header, "member_id");
  const Json* size = number(status, "dbSize");
  if (id == nullptr || size == nullptr) {
    return absl::InvalidArgumentError("endpoint status: no Status.header.member_id or dbSize");
  }
  EndpointStatus out{.member_id = id->get<uint64_t>(), .db_size = size->get<int64_t>()};
  if (const Json* leader = number(status, "leader")) out.leader_id = leader->get<uint64_t>();
  if (const Json* in_use = number(status, "dbSizeInUse"))
    out.db_size_in_use = in_use->get<int64_t>();
  return out;
}

std::vector<DefragStep> PlanDefrag(const std::vector<EtcdMemberEndpoint>& members,
                                   const std::map<std::string, EndpointStatus>& statuses) {
  std::vector<DefragStep> out;
  for (const EtcdMemberEndpoint& m : members) {
    auto it = statuses.find(m.name);
    const bool leader = it != statuses.end() && it->second.member_id != 0 &&
                        it->second.member_id == it->second.leader_id;
    out.push_back({.member = m, .leader = leader});
  }
  std::stable_sort(out.begin(), out.end(), [](const DefragStep& a, const DefragStep& b) {
    if (a.leader != b.leader) return !a.leader;
    return a.member.name < b.member.name;
  });
  return out;
}

}  // namespace quorum::kubectl
