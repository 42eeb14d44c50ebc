// Operator-side role labels: the operator reads each member's role from
// Patroni (REST API) and the leader from the DCS leader key, and corrects the
// pods' `role` labels, so that routing stays right even when the pods' own
// callback cannot reach the API server (with the etcd DCS the pods need no
// API access). The decision is PlanRoleLabels (role_plan.h, pure); this file
// does the I/O with kube::Client merge patches and the Patroni REST client.
//
// Thread-safety: the I/O functions are as thread-safe as the clients they are
// given.
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
#include "src/patroni/role_plan.h"

namespace quorum::patroni {

// Merge-patches each pod's role label in `ns`, in order. A pod that is gone is
// skipped. Once a patch has failed, no later patch gives `primary` (the
// failed one may have been the old primary's removal); the others are still
// attempted. Errors: the first failure of a patch.
absl::Status ApplyRoleLabels(kube::Client& client, std::string_view ns,
                             const std::vector<LabelPatch>& patches);

// GET /patroni of every member (pod name -> endpoint) at once (one thread per
// member; each call bounded by the client's timeout).
std::map<std::string, absl::StatusOr<MemberStatus>> ProbeMembers(
    RestClient& rest, const std::map<std::string, Endpoint>& api_urls);

// Asks every member's REST API (pod name -> endpoint) for its role and state,
// all at once (one thread per member; each call bounded by the client's
// timeout); a failure makes the member unreachable.
std::map<std::string, ObservedRole> ObserveRoles(RestClient& rest,
                                                 const std::map<std::string, Endpoint>& api_urls);

// The leader's member name from etcd: the key <key_namespace>/<scope>/leader
// (slashes collapsed, as Patroni builds it). "" when there is no leader.
// Errors: those of etcd::Client::Get other than NotFound.
absl::StatusOr<std::string> LeaderFromEtcd(etcd::Client& etcd, std::string_view key_namespace,
                                           std::string_view scope);
// The key LeaderFromEtcd reads.
std::string LeaderKey(std::string_view key_namespace, std::string_view scope);

// One pass: reads the pods (label selector `selector` in `ns`), observes the
// members at `api_urls`, plans with `leader` (see PlanRoleLabels; no pod is
// taken as restarting: the operator's own pass, postgrescluster/roles.h,
// reads that from its cache), applies. Returns the patches applied. Errors: listing pods, or
// ApplyRoleLabels'.
absl::StatusOr<std::vector<LabelPatch>> SyncRoleLabels(
    kube::Client& client, std::string_view ns, std::string_view selector, RestClient& rest,
    const std::map<std::string, Endpoint>& api_urls,
    const std::optional<std::string>& leader = std::nullopt);

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_ROLE_SYNC_H_
