// The one table from a Patroni role to the pod's `role` label value, shared
// by the role callback script (role-callback.sh implements the same table)
// and the operator's role sync:
//
//   primary, standby_leader, master (before 4.0)     -> "primary"
//   replica, sync_standby, quorum_standby, standby   -> "replica"
//   demoted, uninitialized, stopped, unknown, ""...  -> no label
//
// A standby leader leads a standby cluster: clients of that cluster route to
// it like to a primary. Anything not routable has no label, so a Service
// selecting role=primary never sends traffic to a member that is stopping.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_PATRONI_ROLE_H_
#define QUORUM_SRC_PATRONI_ROLE_H_

#include <optional>
#include <string>
#include <string_view>

namespace quorum::patroni {

inline constexpr std::string_view kRoleLabel = "role";
inline constexpr std::string_view kPrimaryLabelValue = "primary";
inline constexpr std::string_view kReplicaLabelValue = "replica";

// The label value for `patroni_role`, or nullopt when the pod should carry no
// role label.
std::optional<std::string> RoleLabelValue(std::string_view patroni_role);

// The label value after callback `action` (on_start, on_role_change, on_stop,
// on_restart, on_reload) reported `patroni_role`: on_stop always clears it.
std::optional<std::string> RoleLabelAfterCallback(std::string_view action,
                                                  std::string_view patroni_role);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_ROLE_H_
