// The Job of a major upgrade's Upgrading phase (major_upgrade.h): the new
// major's image (spec.image, else the default of spec.postgresVersion) runs
// src/patroni/pg-upgrade.sh once on the volume of status.majorUpgrade.member,
// with the member's user and security context, no API token and no network
// need. Its pods carry the cluster as app.kubernetes.io/instance but not the
// member label, so no Service, PDB or member count takes them for a member.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_UPGRADE_JOB_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_UPGRADE_JOB_H_

#include <string>

#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/names.h"

namespace quorum::postgrescluster {

// How long pg_upgrade (link mode, then ANALYZE) may take.
inline constexpr int kUpgradeJobDeadlineSeconds = 6 * 3600;

// "<cluster>-upgrade" (shortened with a hash when long: OneShotJobName).
std::string UpgradeJobName(const PostgresCluster& cluster);

// The Job for `upgrade` (from, to, member). `cluster` as parsed: its spec
// names the new major and image.
Json BuildUpgradeJob(const PostgresCluster& cluster,
                     const api::PostgresMajorUpgradeStatus& upgrade);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_UPGRADE_JOB_H_
