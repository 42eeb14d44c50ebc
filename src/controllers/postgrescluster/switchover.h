// The switchover phase: a new value of the switchover trigger annotation is
// acted on once (Patroni's switchover or failover), recorded in
// status.patroni.switchover, evented and logged.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_

#include <optional>
#include <string>

#include "api/postgrescluster_types.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/patroni/rest_client.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgrescluster {

// The switchover trigger annotation when it is new (not yet handled), else
// "". Pure.
std::string NewSwitchoverTrigger(const PostgresCluster& cluster);

// Handles a new switchover trigger; returns the status record, or nullopt
// when there is nothing to record now.
std::optional<api::PostgresSwitchoverStatus> Switchover(const PostgresCluster& cluster,
                                                        const Members& members,
                                                        patroni::RestClient& rest,
                                                        runtime::EventRecorder& recorder,
                                                        const Json& stored);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
