// Running local programs for kubectl-quorum (psql, etcdctl): finding them on
// PATH, holding secret material for them in anonymous in-memory files, and
// either replacing this process with them or running them to completion
// with their output captured. A child's environment is this process's with
// the given changes; secrets go only there or into the in-memory files,
// never into argv.
//
// An in-memory file (memfd, mode 0600 by construction, on no file system) is
// inherited across exec and named /proc/self/fd/N by the child: nothing to
// remove afterwards, gone when the last process holding it exits.
//
// Thread-safety: FindOnPath and HoldInMemory are thread-safe; ExecReplacing
// only from a single-threaded program; RunCaptured from any thread.
#ifndef QUORUM_SRC_KUBECTL_CHILD_PROCESS_H_
#define QUORUM_SRC_KUBECTL_CHILD_PROCESS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace quorum::kubectl {

// Changes to the inherited environment: an empty value removes the variable.
using EnvChanges = std::vector<std::pair<std::string, std::string>>;

// The first executable `program` in the colon-separated `path`, "" if none.
std::string FindOnPath(const std::string& program, const std::string& path);

// FindOnPath over $PATH.
std::string FindOnPath(const std::string& program);

// A memfd named `label` holding `text`, inherited across exec; its path for
// the child is /proc/self/fd/<fd>. Errors: Internal when it cannot be made.
absl::StatusOr<int> HoldInMemory(const std::string& label, const std::string& text);

// Applies `env` to this process and execs `path` with `argv`; returns only
// on failure (Internal naming the program), with the changed variables of
// `env` removed again.
absl::Status ExecReplacing(const std::string& path, const std::vector<std::string>& argv,
                           const EnvChanges& env);

struct CapturedRun {
  int exit_code = -1;  // -1: ended by a signal
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs `path` with `argv` and `env` (applied in the child only) to the end.
// Errors: Internal when it cannot be started.
absl::StatusOr<CapturedRun> RunCaptured(const std::string& path,
                                        const std::vector<std::string>& argv,
                                        const EnvChanges& env);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_CHILD_PROCESS_H_
