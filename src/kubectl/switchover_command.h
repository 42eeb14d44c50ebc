// `kubectl quorum switchover CLUSTER [--to POD] [--failover]`: asks the
// operator for a Patroni switchover the way a user would by hand, in one
// merge patch of the PostgresCluster — spec.patroni.switchover (enabled,
// targetInstance, type) and a new value of the trigger annotation
// (api::kSwitchoverTriggerAnnotation) — then waits until
// status.patroni.switchover records that trigger with a final result.
//
// Thread-safety: the builders are pure; RunSwitchover as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_SWITCHOVER_COMMAND_H_
#define QUORUM_SRC_KUBECTL_SWITCHOVER_COMMAND_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct SwitchoverOptions {
  std::string ns;
  Target target;
  std::string to;         // the member pod to promote; "" lets Patroni choose
  bool failover = false;  // type Failover (needs `to`): promote even without a healthy primary
  absl::Duration wait = absl::Minutes(3);  // zero: do not wait
  absl::Time now;                          // makes the trigger value
};

// Errors: InvalidArgument for an EtcdCluster target or --failover without --to.
absl::Status ValidateSwitchoverOptions(const SwitchoverOptions& options);

// A trigger value unique to the request: "kubectl-" and `now` in UTC to the
// millisecond, e.g. kubectl-20261206T195505.123Z.
std::string NewSwitchoverTrigger(absl::Time now);

// The one merge patch: the annotation and spec.patroni.switchover, with
// targetInstance null (removed) when `to` is empty.
nlohmann::json BuildSwitchoverPatch(const SwitchoverOptions& options, const std::string& trigger);

// The final record of `trigger`: status.patroni.switchover when it names the
// trigger and its result is not Waiting; nullopt while the operator has not
// answered it yet.
std::optional<api::PostgresSwitchoverStatus> FinalSwitchoverRecord(
    const api::PostgresCluster& cluster, const std::string& trigger);

// What the command prints and its exit code once the wait is over: 0 when
// `record` Succeeded, 1 when it Failed or (nullopt) the wait timed out.
// `last` is the cluster as last seen, for what it waits on.
CommandOutput SwitchoverOutcome(const std::string& cluster_name,
                                const std::optional<api::PostgresSwitchoverStatus>& record,
                                const api::PostgresCluster& last, absl::Duration waited);

// Patches the cluster, then waits (options.wait). Errors: as
// ValidateSwitchoverOptions; NotFound naming the PostgresCluster; DataLoss
// when the stored cluster does not decode; other codes as the API answered.
absl::StatusOr<CommandOutput> RunSwitchover(kube::Client& client, const SwitchoverOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_SWITCHOVER_COMMAND_H_
