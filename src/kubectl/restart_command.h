// `kubectl quorum restart CLUSTER [--wait 10m]`: restarts every member pod of
// an EtcdCluster or PostgresCluster through the operator's own rolling
// update — one member at a time, each only once the cluster is healthy;
// etcd's leader last, PostgreSQL's replicas first and the primary after a
// switchover (docs/operations.md). The command changes nothing the operator
// does not already roll: it sets the pod template annotation
// kRestartedAtAnnotation to the time of the request, in the user's own pod
// metadata (EtcdCluster spec.podTemplate.metadata; PostgresCluster
// spec.instances[].metadata of every set), then waits until every member
// pod carries that value and is Ready.
//
// Thread-safety: the builders are pure; RunRestart as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_RESTART_COMMAND_H_
#define QUORUM_SRC_KUBECTL_RESTART_COMMAND_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kubectl/fetch.h"
#include "src/kubectl/pod_info.h"
#include "src/kubectl/status_command.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

// On the member pods' template; its value is the request's time (RFC 3339,
// UTC, to the second), like kubectl rollout restart's own annotation.
inline constexpr char kRestartedAtAnnotation[] = "quorum.dev/restartedAt";

struct RestartOptions {
  std::string ns;
  Target target;
  absl::Duration wait = absl::Minutes(10);  // zero: do not wait
  absl::Time now;                           // makes the annotation's value
};

// "2026-12-07T17:50:00Z".
std::string RestartValue(absl::Time now);

// The merge patch for `cluster` (as stored) of kind `kind`. PostgresCluster:
// the whole spec.instances list (a merge patch replaces lists) with the
// annotation in each set's metadata, and metadata.resourceVersion, so that
// an edit made since the read is refused (Conflict), never overwritten.
// Errors: FailedPrecondition when a PostgresCluster has no instance set.
absl::StatusOr<nlohmann::json> BuildRestartPatch(Kind kind, const nlohmann::json& cluster,
                                                 const std::string& value);

// The member pods the restart replaces: an EtcdCluster's pods, a
// PostgresCluster's instance-set pods (not its repository host).
std::vector<PodInfo> RestartedMembers(Kind kind, const std::vector<PodInfo>& pods);

// The member pods `cluster` (as stored) asks for: spec.replicas, or the sum
// of the instance sets' replicas.
int DesiredMembers(Kind kind, const nlohmann::json& cluster);

// Done: exactly `desired` members, none being deleted, each Ready with the
// annotation at `value`.
bool RestartDone(const std::vector<PodInfo>& members, int desired, const std::string& value);

// Patches the cluster (a Conflict is retried from a fresh read, three times),
// then waits (options.wait). Exit 0 when every member restarted and is
// Ready; 1 when the wait ran out (the text says which members are left).
// Errors: NotFound naming the cluster; as the API answered.
absl::StatusOr<CommandOutput> RunRestart(kube::Client& client, const RestartOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_RESTART_COMMAND_H_
