// `kubectl quorum status`: fetch one cluster (fetch.h), build its view,
// render it as text or JSON; without a name, the list (cluster_list.h). Separated from main so that
// the command's whole path is one call.
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
  Target target;                // an empty name lists every cluster of `ns`
  bool all_namespaces = false;  // with an empty name: list every namespace's
  OutputFormat format = OutputFormat::kText;
  bool colour = false;
  absl::Time now;
};

struct CommandOutput {
  std::string text;  // what goes to stdout
  int exit_code = 0;
};

// One cluster's screen (exit 0 Ready, 1 not), or with no name in the
// target the list of clusters (exit 0 when all are Ready, 1 when any is not).
// Errors: as FetchCluster or FetchClusters (fetch.h).
absl::StatusOr<CommandOutput> RunStatus(kube::Client& client, const StatusOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_STATUS_COMMAND_H_
