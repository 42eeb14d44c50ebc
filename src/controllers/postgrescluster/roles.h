// The role-label phase (etcd DCS): the pods' role labels corrected from the
// members' own word, the old primary's label first (patroni/role_sync.h plans
// the patches). Thread-safety: as the client it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_

#include <string>
#include <vector>

#include "src/controllers/postgrescluster/phase.h"

namespace quorum::postgrescluster {

// With the etcd DCS, corrects the pods' role labels from the members' own
// word (with the kubernetes DCS, Patroni labels its pods itself). Returns a
// problem sentence or "".
std::string CorrectRoleLabels(const Phase& p, const std::vector<runtime::ObjectPtr>& pods,
                              const Members& members);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ROLES_H_
