// The EtcdCluster resource (etcd.aenix.io/v1alpha1): its names, the values
// its defaults use, and the etcd flags that `spec.options` may not set.
// API.md is the contract; this header is where code finds the constants, so
// the CRD generator, the webhooks and the reconciler agree on them.
//
// Thread-safety: constants and pure functions only.
#ifndef QUORUM_API_ETCDCLUSTER_H_
#define QUORUM_API_ETCDCLUSTER_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace quorum::api {

inline constexpr std::string_view kEtcdGroup = "etcd.aenix.io";
inline constexpr std::string_view kEtcdVersion = "v1alpha1";
inline constexpr std::string_view kEtcdApiVersion = "etcd.aenix.io/v1alpha1";
inline constexpr std::string_view kEtcdClusterKind = "EtcdCluster";
inline constexpr std::string_view kEtcdClusterListKind = "EtcdClusterList";
inline constexpr std::string_view kEtcdClusterPlural = "etcdclusters";
inline constexpr std::string_view kEtcdClusterSingular = "etcdcluster";
inline constexpr std::string_view kEtcdClusterCrdName = "etcdclusters.etcd.aenix.io";

// Defaults (API.md "spec").
inline constexpr int32_t kDefaultReplicas = 3;
// The most members spec.replicas may ask for. etcd advises 3, 5 or 7 (every
// write waits for a majority, so more members make writes slower and add no
// safety past that); 9 leaves room to grow through an even size. The cap also
// bounds what one object can make the operator allocate (issue 14).
inline constexpr int32_t kMaxReplicas = 9;
inline constexpr std::string_view kDefaultStorageSize = "4Gi";
inline constexpr std::string_view kDefaultAccessMode = "ReadWriteOnce";

// The longest EtcdCluster name: the StatefulSet is named after the cluster and
// its pods carry a controller-revision-hash label "<name>-<10 chars>" that
// must fit the 63-character label limit.
inline constexpr size_t kMaxEtcdClusterNameLength = 52;

// etcd flags (without the leading "--") that Quorum sets itself: identity,
// data location, listen/advertise URLs, bootstrap (initial-cluster*,
// discovery*), automatic TLS and the TLS file flags, and config-file (which
// would override every flag). Sorted.
std::span<const std::string_view> ReservedEtcdOptions();

// True when `key` is one of ReservedEtcdOptions(), or starts with "listen-"
// or "discovery" (etcd keeps adding flags in those families).
bool IsReservedEtcdOption(std::string_view key);

}  // namespace quorum::api

#endif  // QUORUM_API_ETCDCLUSTER_H_
