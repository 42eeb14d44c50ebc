// Starting a container's process inside a pod's namespaces, and the small
// process helpers the runtime needs (run a command, signal a process group,
// find the processes of a network namespace).
//
// Spawn forks and, in the child, only makes system calls (no allocation), so
// it is safe from a multi-threaded parent. The child: gets its own process
// group, dies with SIGKILL when the forking thread exits (parent-death
// signal), joins the pod's network namespace, gets a private mount and UTS
// namespace with the pod's bind mounts and hostname, drops to the given
// uid/gid/groups, and execs. Everything is prepared by the parent.
#ifndef QUORUM_TOOLS_LOCALNODE_PROCESS_H_
#define QUORUM_TOOLS_LOCALNODE_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace quorum::localnode {

struct BindMount {
  std::string source;  // a file or a directory on the host
  std::string target;  // absolute path as the process sees it
  bool read_only = false;
};

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0]: an absolute path
  std::vector<std::string> env;   // KEY=VALUE
  std::string netns_path;         // empty: stay in the caller's network namespace
  std::string hostname;           // empty: keep
  std::vector<BindMount> mounts;  // in order; targets are created by the parent
  // Directories that stay visible under an otherwise hidden /root (programs of
  // the image table living in root's 0700 home). Mount sources may live under
  // /root as well: they are opened before /root is hidden.
  std::vector<std::string> root_exposed;
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  std::vector<gid_t> groups;
  std::string workdir;      // empty: "/"
  std::string output_path;  // stdout+stderr appended here; empty: /dev/null
};

// The pid of the new process (also its process-group id).
absl::StatusOr<pid_t> Spawn(const SpawnSpec& spec);

// Runs argv (argv[0] looked up in PATH) to completion; output captured.
struct RunResult {
  int exit_code = -1;  // -1 when it could not start or was killed
  std::string output;
};
RunResult Run(const std::vector<std::string>& argv, absl::Duration timeout = absl::Seconds(30));
// Run, and an error naming the command and its output unless it exited 0.
absl::Status RunOk(const std::vector<std::string>& argv);

// SIGTERM/SIGKILL the process group `pgid` (and the process itself).
void SignalGroup(pid_t pgid, int signal);

// Pids of the processes whose network namespace is the one at `netns_path`.
std::vector<pid_t> ProcessesInNetns(const std::string& netns_path);
// SIGKILL every process of that namespace, waiting up to `wait` for them.
void KillNetnsProcesses(const std::string& netns_path, absl::Duration wait = absl::Seconds(5));

// Finds `name` in the ':'-separated `path` (a name with '/' is returned as is
// when executable). Empty when not found.
std::string LookPath(const std::string& name, const std::string& path);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_PROCESS_H_
