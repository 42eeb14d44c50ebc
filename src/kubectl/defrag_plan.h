// The pure half of `kubectl quorum defrag`: reading `etcdctl endpoint status
// -w json` of one member, and the order members are defragmented in —
// followers first (by name), the leader last, so that the cluster loses its
// leader's attention once at most, at the end.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_DEFRAG_PLAN_H_
#define QUORUM_SRC_KUBECTL_DEFRAG_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/kubectl/etcd_access.h"

namespace quorum::kubectl {

struct EndpointStatus {
  uint64_t member_id = 0, leader_id = 0;
  int64_t db_size = 0, db_size_in_use = 0;
  bool operator==(const EndpointStatus&) const = default;
};

// The first entry of etcdctl's JSON array. Errors: InvalidArgument when the
// text is not that JSON or lacks Status.header.member_id or Status.dbSize.
absl::StatusOr<EndpointStatus> ParseEndpointStatus(std::string_view json);

struct DefragStep {
  EtcdMemberEndpoint member;
  bool leader = false;
  bool operator==(const DefragStep&) const = default;
};

// Every member in `members` in defragmentation order; the leader is the
// member whose own id is the leader id its status reports.
std::vector<DefragStep> PlanDefrag(const std::vector<EtcdMemberEndpoint>& members,
                                   const std::map<std::string, EndpointStatus>& statuses);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_DEFRAG_PLAN_H_
