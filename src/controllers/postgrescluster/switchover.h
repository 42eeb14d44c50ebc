// The switchover phase: a new value of the switchover trigger annotation is
// planned (switchover_plan.h) and carried out once (Patroni's switchover or
// failover), recorded in status.patroni.switchover, evented and logged.
// With a pooler (spec.proxy.pgBouncer), a Switchover pauses it first, for at
// most kPoolerPauseWait of running transactions, and resumes it once
// Patroni answered: a pooler that cannot pause in time is resumed and the
// switchover goes on without (the record says so).
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/pgbouncer_console.h"
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
  bool pooler_left_paused = false;  // a pooler pod could not be resumed
};

// How long a switchover waits for the pooler's running transactions to end.
inline constexpr absl::Duration kPoolerPauseWait = absl::Seconds(10);

// Carries out `plan` (PlanSwitchover): asks Patroni for a kAct and records
// its answer; records an answer or a wait. Each is evented and logged (a
// wait when its record changes: `cluster`'s status has the previous one).
// `pooler`: the pooler's console when there is one (nullptr: none), used
// only for a Switchover (a Failover's primary is gone already).
SwitchoverOutcome Switchover(const SwitchoverPlan& plan, const PostgresCluster& cluster,
                             const Members& members, patroni::RestClient& rest,
                             const patroni::BasicAuth& auth, runtime::EventRecorder& recorder,
                             const Json& stored, PoolerPause* pooler = nullptr);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
