// kubectl-quorum's exit codes, for scripts (documented in --help and
// docs/kubectl-quorum.md).
//
// Thread-safety: constants and pure functions.
#ifndef QUORUM_SRC_KUBECTL_EXIT_CODE_H_
#define QUORUM_SRC_KUBECTL_EXIT_CODE_H_

#include "absl/status/status.h"
#include "src/kubectl/status_view.h"

namespace quorum::kubectl {

inline constexpr int kExitHealthy = 0;   // Ready
inline constexpr int kExitDegraded = 1;  // not ready, degraded, deleting
inline constexpr int kExitUsage = 2;     // bad command line, cluster not found, ambiguous name
inline constexpr int kExitApi = 3;       // the API could not be read (or the kubeconfig)

inline constexpr char kExitCodesHelp[] =
    "Exit codes: 0 healthy (Ready), 1 not ready or degraded, 2 usage error or not found,\n"
    "3 API error (unreachable, unauthorized, forbidden, bad kubeconfig).";

inline int ExitCodeFor(Health health) {
  return health == Health::kHealthy ? kExitHealthy : kExitDegraded;
}

// A failed command's code: usage (InvalidArgument, NotFound) or API (any other).
inline int ExitCodeFor(const absl::Status& status) {
  if (absl::IsInvalidArgument(status) || absl::IsNotFound(status)) return kExitUsage;
  return kExitApi;
}

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_EXIT_CODE_H_
