// Patroni's start-up hook (src/patroni/sitecustomize.py), embedded at build
// time. The controller puts it into the cluster's ConfigMap and points
// PYTHONPATH at the mounted directory (ConfigInput::python_path): Python then
// imports it before Patroni runs. It shortens the name cache Patroni's etcd
// module keeps for all of the process's HTTP connections (ten minutes) to a
// few seconds, so that members replaced by a rolling update are reached at
// their new pod IPs. Without the etcd DCS it does nothing.
//
// Thread-safety: pure function.
#ifndef QUORUM_SRC_PATRONI_START_HOOK_H_
#define QUORUM_SRC_PATRONI_START_HOOK_H_

#include <string_view>

namespace quorum::patroni {

// The name Python imports at start-up from a PYTHONPATH directory.
inline constexpr std::string_view kStartHookFileName = "sitecustomize.py";

// The hook's bytes (Python 3).
std::string_view StartHookScript();

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_START_HOOK_H_
