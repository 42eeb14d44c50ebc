// Failpoints: named places in the operator where a test can make it crash,
// to prove that a crash at any step leaves clusters healthy and resumable.
//
// Off unless the environment variable QUORUM_FAILPOINTS names them (a comma
// list, read once at the first call). Reaching a named failpoint logs it and
// ends the process at once with exit status kFailpointExitCode — no
// destructors, no flushing of in-flight work, like a SIGKILL. Names are
// "<controller>/<before|after>-<step>", e.g. "etcdcluster/after-AddLearner";
// docs/reliability.md lists them.
//
// Thread-safety: Failpoint() may be called from any thread.
#ifndef QUORUM_SRC_BASE_FAILPOINT_H_
#define QUORUM_SRC_BASE_FAILPOINT_H_

#include <set>
#include <string>
#include <string_view>

namespace quorum {

inline constexpr int kFailpointExitCode = 86;

// Crashes the process if `name` is armed.
void Failpoint(std::string_view name);

// The armed names parsed from a QUORUM_FAILPOINTS value (pure, for tests).
std::set<std::string> ParseFailpoints(std::string_view value);

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_FAILPOINT_H_
