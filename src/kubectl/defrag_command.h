// `kubectl quorum defrag CLUSTER [--wait D]`: defragments every member of an
// EtcdCluster one at a time through the local etcdctl (the access of
// etcdctl_command.h, each member at its headless-Service name
// <pod>.<cluster>-headless.<ns>.svc:2379, which the machine must resolve):
// followers first, the leader last (defrag_plan.h), waiting after each for
// the member to answer `endpoint health` before the next, and printing each
// member's database size before and after. Nothing starts unless every
// member answers first; the run stops at the first member that fails.
//
// Thread-safety: call from one thread (it runs child processes).
#ifndef QUORUM_SRC_KUBECTL_DEFRAG_COMMAND_H_
#define QUORUM_SRC_KUBECTL_DEFRAG_COMMAND_H_

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct DefragOptions {
  std::string ns;
  Target target;
  absl::Duration wait = absl::Minutes(2);  // per member, for it to be healthy again
};

// The exit code: 0 every member defragmented and healthy, 1 any failed
// (said on `err`). Errors: as RunEtcdctl's before etcdctl runs (NotFound
// when etcdctl is missing, as FetchEtcdAccess); FailedPrecondition when the
// cluster's status lists no members.
absl::StatusOr<int> RunDefrag(kube::Client& client, const DefragOptions& options, std::ostream& out,
                              std::ostream& err);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_DEFRAG_COMMAND_H_
