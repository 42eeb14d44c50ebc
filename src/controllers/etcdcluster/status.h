// Status phase of the EtcdCluster reconciler (API.md): conditions
// Initialized, Ready, Error, SpaceAlarm (present once a NOSPACE alarm was
// seen: True while it is raised, False after the operator disarmed it) and
// Storage (present once the claim template changed: False while volumes are
// being expanded or a change cannot be made, True when done), observedGeneration,
// readyReplicas, members, leader, clientEndpoint, clientSecretName and authSecretName. Pure: the
// caller passes the time used for condition transitions, and transition
// times are kept when a condition is unchanged.
//
// After a quorum loss, Ready comes back only once a majority has answered for
// kQuorumSettle: Ready is Unknown (reason QuorumRecovering) meanwhile. Members
// frozen past their liveness probe answer for a moment when they resume, and
// then all restart at once (the kubelet's kill was pending): one good answer
// is not a quorum that holds.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_STATUS_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_STATUS_H_

#include <map>
#include <string>

#include "absl/time/time.h"
#include "api/etcdcluster_types.h"
#include "src/controllers/etcdcluster/observe.h"

namespace quorum::etcdcluster {

// The volumes against spec.storage (src/controllers/common/claim_templates.h).
struct StorageState {
  std::string reason;  // "" when everything is as asked; else Recreating, Resizing, ...
  std::string message;
  bool ok = true;
};

struct StatusInput {
  const EtcdCluster* cluster = nullptr;  // as read (its old status included)
  const EtcdView* etcd = nullptr;
  int ready_pods = 0;
  int statefulset_replicas = 0;             // as observed; 0 when there is no StatefulSet
  std::string action_reason;                // the planner's current sentence
  bool converged = false;                   // planner said kNone
  std::string problem;                      // e.g. a missing Secret; empty when none
  std::map<int, std::string> storage_uids;  // ordinal → storage identity, recorded per member
  bool space_alarm = false;                 // a NOSPACE alarm is raised (space.h)
  std::string space_message;                // the housekeeping's last sentence, "" when none
  StorageState storage;
  // etcd answered that authentication is on in this pass (spec.security.
  // enableAuth); status.authSecretName is written from then on, never before,
  // so a client that reads it finds auth enforced.
  bool auth_on = false;
  // The version rule the spec's etcd image breaks (version_path.h); "" when
  // none: condition VersionSupported.
  std::string version_rule;
  absl::Time now;
};

inline constexpr absl::Duration kQuorumSettle = absl::Seconds(10);

api::EtcdClusterStatus BuildStatus(const StatusInput& in);

// When to look again so that Ready can leave QuorumRecovering: the rest of
// kQuorumSettle (at least a second), or zero when Ready is not waiting for it.
absl::Duration RecheckReadyAfter(const api::EtcdClusterStatus& status, absl::Time now);

// Storage identities recorded in status.members[].dataUID by ordinal, of the
// members `view` still lists under the recorded ID: a member replaced at the
// same ordinal (a new ID) starts clean. All of them when the member list is
// unknown (quorum lost): they are the evidence then.
std::map<int, std::string> RecordedStorageUids(const EtcdCluster& cluster, const EtcdView& view);

// Whether status says the cluster was initialized.
bool StatusInitialized(const EtcdCluster& cluster);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_STATUS_H_
