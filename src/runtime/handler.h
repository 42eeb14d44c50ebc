// Event handlers and predicates: how a watched object's change turns into
// reconcile requests, as in controller-runtime. A MapFunc maps one object to
// the requests it should trigger; a Predicate filters events first.
// Everything here is pure or reads only a Store; thread-safe.
#ifndef QUORUM_SRC_RUNTIME_HANDLER_H_
#define QUORUM_SRC_RUNTIME_HANDLER_H_

#include <functional>
#include <string>
#include <vector>

#include "src/runtime/reconciler.h"
#include "src/runtime/store.h"

namespace quorum::runtime {

using MapFunc = std::function<std::vector<Request>(const Json& object)>;

// The object itself.
MapFunc EnqueueRequestForObject();
// The owner named in the object's ownerReferences with this apiVersion group
// and kind (only the controller reference when `only_controller`).
MapFunc EnqueueRequestForOwner(std::string owner_group, std::string owner_kind,
                               bool only_controller = true);
// Whatever `store`'s index `index` lists under the value(s) `values(object)`
// yields — e.g. "PostgresClusters that reference Secret X": the index maps
// each PostgresCluster to the Secret keys it uses, and `values` gives the
// changed Secret's key. `store` must outlive the MapFunc.
MapFunc EnqueueRequestsFromIndex(const Store& store, std::string index,
                                 std::function<std::vector<std::string>(const Json&)> values);

// A filter on events; an unset function lets the event through.
struct Predicate {
  std::function<bool(const Json& object)> create;
  std::function<bool(const Json& old_object, const Json& new_object)> update;
  std::function<bool(const Json& object)> del;
};

// Updates only when metadata.generation changed (spec changes; status-only
// writes and resyncs are ignored). Creates and deletes pass.
Predicate GenerationChangedPredicate();
// Updates only when metadata.resourceVersion changed (drops resyncs).
Predicate ResourceVersionChangedPredicate();
// Updates only when metadata.labels changed.
Predicate LabelChangedPredicate();
// Updates only when something besides .status and metadata.resourceVersion
// changed: another controller's status writes (a StatefulSet's replica counts
// while its pods start) are ignored, while spec, labels, annotations, owner
// references, finalizers and a deletion pass. For watchers that never read
// the object's status.
Predicate IgnoreStatusOnlyChangesPredicate();
// Updates only when the object differs in anything but
// metadata.resourceVersion. With a cache transform (transforms.h) both
// versions are the stripped ones, so an update that only touched what the
// controllers do not read (a pod's annotations, a condition's timestamps, a
// StatefulSet's status counters nobody reads) is dropped.
Predicate ContentChangedPredicate();

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_HANDLER_H_
