// The role-label phase (etcd DCS, kubernetes DCS on ConfigMaps: where the
// primary Service selects by label): the pods' role labels corrected from the
// members' own word, the old primary's label first (patroni/role_sync.h plans
// the patches). Thread-safety: as the client it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_

#include <string>
#include <vector>

#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// Unless the kubernetes DCS is on Endpoints (whose addresses Patroni writes
// itself), corrects the pods' role labels from the members' own word and the
// DCS leader: Patroni on ConfigMaps labels its own pod, but a member whose
// Patroni died keeps its old label. Returns a problem sentence or "".
std::string CorrectRoleLabels(const Phase& p, const std::vector<runtime::ObjectPtr>& pods,
                              const Members& members);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_
