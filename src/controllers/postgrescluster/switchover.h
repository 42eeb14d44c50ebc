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

// Why `target` cannot be switched or failed over to — it is not one of the
// pods the spec asks for (MemberPodNames) — naming the field and the members;
// "" when it is empty or a member. Such a trigger is answered Failed at once
// instead of waiting for a pod that will never run. Pure.
std::string NotAMember(const PostgresCluster& cluster, const std::string& target);

// Why a Switchover (not a Failover) must wait, or "" when it may go now: the
// target — or, without one, some member other than the primary — must be a
// replica whose PostgreSQL runs or streams. Right after a role change the old
// primary restarts as a replica for a few seconds, and Patroni refuses a
// switchover to it ("no good candidates", HTTP 412); the trigger waits for it
// instead of failing. Pure.
std::string SwitchoverBlocker(const Members& members, const std::string& target);

// Handles a new switchover trigger; returns the status record, or nullopt
// when there is nothing to record now (no primary to move from yet, or the
// candidate is not ready: SwitchoverBlocker). The record's time is `now`.
std::optional<api::PostgresSwitchoverStatus> Switchover(const PostgresCluster& cluster,
                                                        const Members& members,
                                                        patroni::RestClient& rest,
                                                        const patroni::BasicAuth& auth,
                                                        runtime::EventRecorder& recorder,
                                                        const Json& stored, absl::Time now);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_SWITCHOVER_H_
