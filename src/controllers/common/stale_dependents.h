// Objects left by an earlier object of the same kind and name. A cluster
// deleted and created again at once (a user's re-create, the quorum-loss
// procedure in docs/backup.md) finds its predecessor's dependents still there
// until the garbage collector removes them: Secrets made once (passwords, a
// CA), a StatefulSet with the old members' data. Acting on them would adopt
// them (a server-side apply replaces the owner reference) or build on them
// (a password the garbage collector then deletes), so reconcilers wait until
// they are gone. An orphaned object (no controller reference) is not stale:
// adopting it is what the user asked for with --cascade=orphan.
//
// Thread-safety: pure functions; StaleDependent reads the cache only.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_STALE_DEPENDENTS_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_STALE_DEPENDENTS_H_

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "src/kube/client.h"
#include "src/runtime/cache.h"

namespace quorum::controllers {

// The owner whose dependents are looked at.
struct OwnerIdentity {
  std::string_view kind, ns, name, uid;
};

// True when `object`'s controller owner reference names `owner`'s kind and
// name with another uid.
bool OwnedByEarlier(const nlohmann::json& object, const OwnerIdentity& owner);

// "<resource>/<name>" (e.g. statefulsets/main) of the first cached object of the instance
// `owner.name` (the app.kubernetes.io/instance index) among `gvrs` that OwnedByEarlier;
// "" when there is none.
std::string StaleDependent(const runtime::Cache& cache,
                           std::initializer_list<kube::GroupVersionResource> gvrs,
                           const OwnerIdentity& owner);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_STALE_DEPENDENTS_H_
