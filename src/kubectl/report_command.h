// `kubectl quorum report CLUSTER [-o FILE]`: a .tar.gz for bug reports with
// the cluster, the objects of its namespace that belong to it, the events
// about them, the last lines of each member container's log and the `status
// -o json` view; Secrets only as names and key names (report_build.h).
// What cannot be read (a list RBAC forbids, a log of a pod that is gone) is
// named in the archive's README instead of failing the report.
//
// Thread-safety: as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_REPORT_COMMAND_H_
#define QUORUM_SRC_KUBECTL_REPORT_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct ReportOptions {
  std::string ns;
  Target target;
  std::string output;  // "" ./<ReportBaseName>.tar.gz
  int64_t tail_lines = 2000;
  absl::Time now;
};

// Writes the archive (mode 0600) and says where (exit 0). Errors: as
// FindCluster (fetch.h); Internal (exit 3) when the file cannot be written.
absl::StatusOr<CommandOutput> RunReport(kube::Client& client, const ReportOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_REPORT_COMMAND_H_
