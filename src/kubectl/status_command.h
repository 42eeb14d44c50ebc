// `kubectl quorum status`: fetch one cluster (fetch.h), build its view,
// render it as text or JSON. Separated from main so that the command's
// whole path is one call.
//
// Thread-safety: as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_STATUS_COMMAND_H_
#define QUORUM_SRC_KUBECTL_STATUS_COMMAND_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

enum class OutputFormat { kText, kJson };

struct StatusOptions {
  std::string ns;
  Target target;
  OutputFormat format = OutputFormat::kText;
  bool colour = false;
  absl::Time now;
};

struct CommandOutput {
  std::string text;  // what goes to stdout
  int exit_code = 0;
};

// Errors: as FetchCluster (fetch.h).
absl::StatusOr<CommandOutput> RunStatus(kube::Client& client, const StatusOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_STATUS_COMMAND_H_
