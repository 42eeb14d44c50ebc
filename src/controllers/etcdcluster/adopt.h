// Taking over a cluster another operator made for the same EtcdCluster object
// (the aenix etcd-operator: the same object names, owner references to the
// same EtcdCluster): what Quorum keeps of what runs because Kubernetes or etcd
// will not let it change in place.
//
//   * A StatefulSet's selector is immutable. aenix's also selects
//     app.kubernetes.io/managed-by=etcd-operator; Quorum applies the live
//     selector, and its labels on the pod template (they must match).
//   * aenix peers over https with certificates etcd makes itself
//     (--peer-auto-tls) even without peer Secrets, and every member is
//     registered with an https peer URL. Members rolled to plain http could
//     no longer reach each other, so Quorum keeps auto TLS for such a cluster
//     (names.h kPeerAutoTlsAnnotation, set in memory when inferred).
//
// Pure functions; thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ADOPT_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ADOPT_H_

#include "src/controllers/etcdcluster/names.h"
#include "src/controllers/etcdcluster/observe.h"

namespace quorum::etcdcluster {

// True when the spec names no peer Secret and what runs peers with auto TLS:
// the live StatefulSet's etcd container has --peer-auto-tls (`live_sts` may
// be null), or etcd lists a member with an https peer URL.
bool RunsPeerAutoTls(const EtcdCluster& cluster, const Json* live_sts, const EtcdView& view);

// `cluster` with kPeerAutoTlsAnnotation "true" when RunsPeerAutoTls says so.
EtcdCluster WithInferredPeerAutoTls(EtcdCluster cluster, const Json* live_sts,
                                    const EtcdView& view);

// Whether `live` (an object of one of the names Quorum gives this cluster's
// objects) may be taken over: an owner reference names this EtcdCluster
// (its uid), as aenix's and Quorum's own objects do. An object of that name
// made for something else is never taken over.
bool MayAdopt(const Json& live, const EtcdCluster& cluster);

// `desired` (BuildStatefulSet) with the live StatefulSet's selector when the
// two differ, each of its matchLabels added to the pod template's labels.
// Unchanged when `live` is null or has no selector.
Json KeepLiveSelector(Json desired, const Json* live);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ADOPT_H_
