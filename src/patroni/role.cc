#include "src/patroni/role.h"

namespace quorum::patroni {

std::optional<std::string> RoleLabelValue(std::string_view patroni_role) {
  if (patroni_role == "primary" || patroni_role == "standby_leader" || patroni_role == "master") {
    return std::string(kPrimaryLabelValue);
  }
  if (patroni_role == "replica" || patroni_role == "sync_standby" ||
      patroni_role == "quorum_standby" || patroni_role == "standby") {
    return std::string(kReplicaLabelValue);
  }
  return std::nullopt;
}

std::optional<std::string> RoleLabelAfterCallback(std::string_view action,
                                                  std::string_view patroni_role) {
  if (action == "on_stop") return std::nullopt;
  return RoleLabelValue(patroni_role);
}

}  // namespace quorum::patroni
