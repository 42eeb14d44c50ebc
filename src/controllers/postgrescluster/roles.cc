#include "src/controllers/postgrescluster/roles.h"

#include <spdlog/spdlog.h>

#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/dcs_objects.h"
#include "src/patroni/role.h"
#include "src/patroni/role_sync.h"

namespace quorum::postgrescluster {

using runtime::ObjectPtr;

std::string CorrectRoleLabels(const Phase& p, const std::vector<ObjectPtr>& pods,
                              const Members& members) {
  if (UsesEndpoints(p.cluster)) return "";  // Patroni routes through the Endpoints itself
  std::vector<patroni::PodRoleLabel> current;
  for (const ObjectPtr& pod : pods) {
    const Json& label = At(*pod, {"metadata", "labels", std::string(patroni::kRoleLabel).c_str()});
    current.push_back({Str(At(*pod, {"metadata", "name"})),
                       label.is_string() ? std::optional(label.get<std::string>()) : std::nullopt,
                       controllers::PodRestartingUnready(*pod)});
  }
  const std::vector<patroni::LabelPatch> patches =
      patroni::PlanRoleLabels(current, members.roles, members.leader);
  absl::Status s = patroni::ApplyRoleLabels(p.client, p.n.ns, patches);
  for (const patroni::LabelPatch& patch : patches) {
    spdlog::info("pod {} role label -> {}", patch.pod, patch.label.value_or("(none)"));
  }
  return s.ok() ? "" : "correcting role labels: " + std::string(s.message());
}

}  // namespace quorum::postgrescluster
