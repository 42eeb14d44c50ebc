// The switchover phase: a new value of the switchover trigger annotation is
// planned (switchover_plan.h) and carried out once (Patroni's switchover or
// failover), recorded in status.patroni.switchover, evented and logged.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/switchover_plan.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgrescluster {

// What Switchover() did: the status record to write (nullopt: nothing to
// record now), and when to look again (a wait's bound).
struct SwitchoverOutcome {
  std::optional<api::PostgresSwitchoverStatus> record;
  std::optional<absl::Duration> recheck_after;
};

// Carries out `plan` (PlanSwitchover): asks Patroni for a kAct and records
// its answer; records an answer or a wait. Each is evented and logged (a
// wait when its record changes: `cluster`'s status has the previous one).
SwitchoverOutcome Switchover(const SwitchoverPlan& plan, const PostgresCluster& cluster,
                             const Members& members, patroni::RestClient& rest,
                             const patroni::BasicAuth& auth, runtime::EventRecorder& recorder,
                             const Json& stored);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
