// The in-place major upgrade of a PostgresCluster (docs/upgrades.md): a
// spec.postgresVersion above the data's major (status.postgresVersion)
// upgrades the data with pg_upgrade, offline, in these steps (the phases of
// status.majorUpgrade, each resumable after an operator crash):
//
//   Preparing: the primary must be an ordinal-0 pod (a StatefulSet can run
//       its pod 0 alone, never another ordinal alone); if it is not, a
//       switchover to an ordinal-0 pod that streams from it.
//   StoppingReplicas: every other member stops (their StatefulSets scale to
//       0, that pod's set to 1) — stopped first, they cannot take over when
//       the primary stops.
//   Stopping: the primary stops (Patroni shuts PostgreSQL down cleanly).
//   Upgrading: a Job (upgrade_job.h) runs pg_upgrade on that pod's volume
//       with both majors' binaries (the new image carries the old ones); it
//       first runs pg_upgrade --check, and fails before touching the old
//       data when the check fails. Once it succeeded, Patroni's state leaves
//       the DCS (the new data has a new system identifier).
//   Starting: that pod starts on the new major alone: Patroni finds data and
//       no cluster in the DCS, initialises it with this data and leads.
//   Succeeded: status.postgresVersion is the new major; the other members
//       come back and clone the new primary (their data directory of the new
//       major is empty).
//   Failed: the Job failed (its message says why): the members run the old
//       major again, from their own data. spec.postgresVersion set back to the
//       data's major ends it; set again afterwards, it starts a new attempt.
//
// While an upgrade is under way (Preparing to Starting) the usual member
// steps wait: rolls, removals, switchover triggers, users and configuration.
// The members' pod template follows the data, not the spec: the old major and
// image until the Job succeeded (RunningView).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MAJOR_UPGRADE_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MAJOR_UPGRADE_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/common/job_outcome.h"
#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// Not yet: a cluster with pgBackRest repositories (their stanza would need
// `pgbackrest stanza-upgrade` with the new major, which Quorum does not run
// yet): such an upgrade fails at once, nothing stopped (admission refuses it).
inline constexpr std::string_view kBackupsBlockUpgrade =
    "a major upgrade of a cluster with spec.backups.pgbackrest is not supported yet: its "
    "pgBackRest stanza would need upgrading with the data (stanza-upgrade), which Quorum does "
    "not do yet";

// How long Preparing waits for its switchover before the upgrade fails.
inline constexpr absl::Duration kUpgradeSwitchoverWait = absl::Minutes(3);

// The data's major: status.postgresVersion, else spec.postgresVersion.
int DataMajor(const PostgresCluster& cluster);

// Whether status.majorUpgrade is in Preparing..Starting.
bool UpgradeUnderway(const PostgresCluster& cluster);

// The spec as the members must run it now, written into `cluster`: while the
// data is not at spec.postgresVersion (an upgrade before Starting, a failed
// one, a version the webhook would have refused), postgresVersion is the
// data's major and image the one the members ran (status.majorUpgrade's
// fromImage, else `running_image`, the StatefulSet's, when known).
void ApplyRunningView(PostgresCluster& cluster, const std::string& running_image);

// The replicas an instance set runs during the upgrade; nullopt: its spec's.
std::optional<int> UpgradeReplicas(const PostgresCluster& cluster, const std::string& set_name);

struct UpgradeObservation {
  const PostgresCluster* cluster = nullptr;  // as parsed (before ApplyRunningView)
  const Members* members = nullptr;
  std::set<std::string> pods;                  // the member pods that exist
  std::string running_image;                   // the first set's template image ("" unknown)
  std::optional<controllers::JobOutcome> job;  // the upgrade Job, when it exists
  absl::Time now;
};

struct UpgradeStep {
  // status.postgresVersion and status.majorUpgrade to write.
  int32_t data_major = 0;
  std::optional<api::PostgresMajorUpgradeStatus> status;
  enum Action {
    kNone,
    kSwitchover,  // to `switchover_to`
    kCreateJob,   // the upgrade Job (already there: nothing)
    kDeleteJob,   // a finished Job of an earlier attempt
    kClearDcs,    // Patroni's state leaves the DCS (then the phase is Starting)
  } action = kNone;
  std::string switchover_to;
  std::string event_reason;  // "" none
  std::string event_message;
  bool event_warning = false;
  // Look again then even without an event (a wait with a bound).
  std::optional<absl::Duration> recheck_after;
};

UpgradeStep PlanMajorUpgrade(const UpgradeObservation& o);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_MAJOR_UPGRADE_H_
