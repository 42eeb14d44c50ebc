// The member pods of a cluster as `logs` and `report` read them: the label
// selector that picks them (pure), and the pods themselves as stored.
//
// Thread-safety: pure functions; FetchMemberPods as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_MEMBERS_H_
#define QUORUM_SRC_KUBECTL_MEMBERS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "src/kube/client.h"
#include "src/kubectl/fetch.h"

namespace quorum::kubectl {

// An EtcdCluster's status.selector, else its default member labels; a
// PostgresCluster's postgres.quorum.dev/cluster=<name> (every instance set
// and the repository host).
std::string MemberSelector(const FoundCluster& cluster);

// The pods MemberSelector picks, sorted by name (a JSON array).
// Errors: as the API answered.
absl::StatusOr<nlohmann::json> FetchMemberPods(kube::Client& client, const std::string& ns,
                                               const FoundCluster& cluster);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_MEMBERS_H_
