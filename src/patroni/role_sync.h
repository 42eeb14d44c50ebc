// Operator-side role labels: the operator reads each member's role from
// Patroni (REST API, or the DCS leader key) and corrects the pods' `role`
// labels, so that routing stays right even when the pods' own callback cannot
// reach the API server (with the etcd DCS the pods need no API access).
//
// PlanRoleLabels is pure (the table in role.h decides each label):
//  * a reachable member gets the label of the role it reports, except that
//    when the DCS leader is known, only the leader may be labelled primary
//    (a member that still claims primary but is not the leader gets none);
//  * an unreachable member keeps its label, unless it is labelled primary and
//    another member is the confirmed primary (reachable, reports a primary
//    role, and is the leader when one is known): then its label is removed;
//  * nothing is patched when every label is right.
// Members are matched to pods by name (Patroni's member name is the pod name).
//
// ApplyRoleLabels / SyncRoleLabels do the I/O with kube::Client merge patches.
//
// Thread-safety: the pure function is thread-safe; the I/O functions are as
// thread-safe as the clients they are given.
#ifndef QUORUM_SRC_PATRONI_ROLE_SYNC_H_
#define QUORUM_SRC_PATRONI_ROLE_SYNC_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/etcd/client.h"
#include "src/kube/client.h"
#include "src/patroni/rest_client.h"

namespace quorum::patroni {

struct PodRoleLabel {
  std::string pod;
  std::optional<std::string> label;  // current value of the role label; nullopt: none
};

// What the operator learned about one member.
struct ObservedRole {
  bool reachable = false;
  std::string role;  // Patroni's role word (GET /patroni "role"); reachable only
};

struct LabelPatch {
  std::string pod;
  std::optional<std::string> label;  // new value; nullopt removes the label
  bool operator==(const LabelPatch&) const = default;
};

// Pods missing from `observed` count as unreachable. `leader` is the DCS
// leader's member name ("" when unknown). Patches come in pod order.
std::vector<LabelPatch> PlanRoleLabels(const std::vector<PodRoleLabel>& pods,
                                       const std::map<std::string, ObservedRole>& observed,
                                       std::string_view leader = "");

// Merge-patches each pod's role label in `ns`. A pod that is gone is skipped.
// Errors: the first failure of a patch (the others are still attempted).
absl::Status ApplyRoleLabels(kube::Client& client, std::string_view ns,
                             const std::vector<LabelPatch>& patches);

// Asks each member's REST API (pod name -> base URL) for its role; a failure
// makes it unreachable.
std::map<std::string, ObservedRole> ObserveRoles(
    RestClient& rest, const std::map<std::string, std::string>& api_urls);

// The leader's member name from etcd: the key <key_namespace>/<scope>/leader
// (slashes collapsed, as Patroni builds it). "" when there is no leader.
// Errors: those of etcd::Client::Get other than NotFound.
absl::StatusOr<std::string> LeaderFromEtcd(etcd::Client& etcd, std::string_view key_namespace,
                                           std::string_view scope);
// The key LeaderFromEtcd reads.
std::string LeaderKey(std::string_view key_namespace, std::string_view scope);

// One pass: reads the pods (label selector `selector` in `ns`), observes the
// members at `api_urls`, plans with `leader`, applies. Returns the patches
// applied. Errors: listing pods, or ApplyRoleLabels'.
absl::StatusOr<std::vector<LabelPatch>> SyncRoleLabels(
    kube::Client& client, std::string_view ns, std::string_view selector, RestClient& rest,
    const std::map<std::string, std::string>& api_urls, std::string_view leader = "");

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_ROLE_SYNC_H_
