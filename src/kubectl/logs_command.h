// `kubectl quorum logs CLUSTER [--container C] [--since D] [--tail N] [-f]`:
// the logs of every member pod of a cluster through the API's pods/log
// endpoint, each line prefixed with "[pod] " (or "[pod/container] " when
// more than one container of a pod is shown). Without -f the containers are
// read one after the other; with -f every one is followed at once, on its
// own thread, until interrupted. A pod that is gone or a container that has
// not started is reported on stderr and skipped: never fatal.
//
// Thread-safety: the planners and LinePrefixer are pure/thread-compatible;
// RunLogs as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_LOGS_COMMAND_H_
#define QUORUM_SRC_KUBECTL_LOGS_COMMAND_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct LogsOptions {
  std::string ns;
  Target target;
  std::string container;                // "" every container of each pod
  std::optional<absl::Duration> since;  // sinceSeconds (rounded up to a second)
  std::optional<int64_t> tail;          // tailLines
  bool follow = false;
};

// One container's log to read, and the prefix of its lines.
struct LogSource {
  std::string pod, container, prefix;
  bool operator==(const LogSource&) const = default;
};

struct LogPlan {
  std::vector<LogSource> sources;
  std::vector<std::string> skipped;  // "pod P: why", for stderr
};

// The sources among `pods` (a JSON array of v1 Pods): every container of
// spec.containers, or only `container`. A pod being deleted is still read;
// a container with no state but waiting (never started) is skipped, as is a
// pod without `container`.
LogPlan PlanLogs(const nlohmann::json& pods, const std::string& container);

// /api/v1/namespaces/NS/pods/POD/log?container=C[&follow=true][&sinceSeconds=S][&tailLines=N]
std::string PodLogPath(const std::string& ns, const LogSource& source, const LogsOptions& options);

// Prefixes every complete line of a byte stream, whatever the chunk
// boundaries; Flush() ends a last line that had no newline.
class LinePrefixer {
 public:
  explicit LinePrefixer(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string Feed(std::string_view chunk);
  std::string Flush();

 private:
  std::string prefix_;
  std::string partial_;
};

// Errors: InvalidArgument for a negative --tail or --since; as FindCluster
// (fetch.h); as the API answered for the pod list. Per-container failures
// go to `err` only.
absl::Status RunLogs(kube::Client& client, const LogsOptions& options, std::ostream& out,
                     std::ostream& err);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_LOGS_COMMAND_H_
