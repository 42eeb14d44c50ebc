// The status phase: BuildStatus (status.h, pure) from what the other phases
// observed, applied to the status subresource only when it changed.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_WRITE_STATUS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_WRITE_STATUS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/controllers/postgrescluster/objects.h"
#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// Builds the status and applies it only when it changed. `backups`: the
// summary of status.backups (nullopt keeps the old). NotFound (the cluster
// went) is OK; other errors are the client's.
absl::Status WriteStatus(const Phase& p, const DcsResolution& dcs, const Members& members,
                         const std::optional<api::PostgresSwitchoverStatus>& switchover,
                         const std::string& problem, const AppliedObjects& applied,
                         const std::optional<std::vector<api::PgBackRestRepoStatus>>& backups);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_WRITE_STATUS_H_
