// The watches PostgresRole and PostgresDatabase share: an index of each kind
// by "<ns>/<cluster>", and a map from a PostgresCluster (or an object of the
// other kind) to the objects of its cluster.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_WATCHES_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_WATCHES_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "src/kube/resource.h"
#include "src/runtime/manager.h"

namespace quorum::postgresobjects {

// "<ns>/<spec.cluster>" of a PostgresRole or PostgresDatabase.
std::vector<std::string> ClusterKeyOfObject(const nlohmann::json& object);
// "<ns>/<name>" of a PostgresCluster.
std::vector<std::string> ClusterKeyOfCluster(const nlohmann::json& cluster);

// Registers `gvr`'s informer with kClusterIndex and a controller for it that
// watches the objects, their clusters and `peer`'s objects of the same
// cluster.
runtime::Controller& SetupSqlObjectController(runtime::Manager& manager,
                                              runtime::Reconciler& reconciler,
                                              const kube::GroupVersionResource& gvr,
                                              const kube::GroupVersionResource& peer,
                                              const std::string& name, int workers);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_WATCHES_H_
