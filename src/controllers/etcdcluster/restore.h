// spec.bootstrap.restore (pure): what a member pod needs to start from a
// snapshot. Two init containers run on every start of every member, and act
// only when the member is the first of a new cluster (the state ConfigMap
// says "new") and its data folder does not exist yet:
//   fetch-snapshot  the operator image copies the snapshot (S3, keys from the
//                   credentials Secret as environment variables; or a file on
//                   the source claim) into an emptyDir and checks etcd's
//                   SHA-256 trailer
//   restore         the etcd image runs `etcdutl snapshot restore` with the
//                   member's name, peer URL and the initial cluster, into a
//                   temporary folder renamed into place (a crash leaves no
//                   half-restored data folder behind)
// The restored member has a new cluster ID and member ID; the other members
// join it as usual and receive its data from the leader.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESTORE_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESTORE_H_

#include <string>

#include "src/controllers/etcdcluster/names.h"

namespace quorum::etcdcluster {

// The init containers and the volumes they add (empty arrays when the
// cluster has no restore source).
struct RestorePodParts {
  Json init_containers = Json::array();
  Json volumes = Json::array();
};
RestorePodParts BuildRestorePodParts(const EtcdCluster& cluster, const std::string& operator_image);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_RESTORE_H_
