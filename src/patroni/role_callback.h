// The role callback script (src/patroni/role-callback.sh), embedded at build
// time so that the controller can put it into a ConfigMap and point Patroni's
// on_start / on_role_change / on_stop at the mounted file. Its role table is
// the one in role.h; the environment it reads is documented in the script.
//
// Thread-safety: pure function.
#ifndef QUORUM_SRC_PATRONI_ROLE_CALLBACK_H_
#define QUORUM_SRC_PATRONI_ROLE_CALLBACK_H_

#include <string_view>

namespace quorum::patroni {

inline constexpr std::string_view kRoleCallbackFileName = "role-callback.sh";

// The script's bytes (POSIX sh; needs curl).
std::string_view RoleCallbackScript();

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_ROLE_CALLBACK_H_
