// Deterministic names and URLs of everything an EtcdCluster owns, derived
// from the typed cluster alone (pure; thread-safe).
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NAMES_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NAMES_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/etcdcluster_types.h"

namespace quorum::etcdcluster {

using Json = nlohmann::json;
using api::EtcdCluster;

inline constexpr int kClientPort = 2379;
inline constexpr int kPeerPort = 2380;
inline constexpr int kMetricsPort = 2381;
inline constexpr char kDefaultImage[] = "quay.io/coreos/etcd:v3.6.16";
inline constexpr char kContainerName[] = "etcd";
inline constexpr char kDataVolume[] = "data";
inline constexpr char kDataDir[] = "/var/run/etcd";
inline constexpr char kFieldManager[] = "quorum-operator";
// On the pods of an EtcdBackup's snapshot Job: "<cluster>", the cluster they
// read. The cluster's NetworkPolicy admits them to the client port.
inline constexpr char kSnapshotClientLabel[] = "etcd.aenix.io/snapshot-client";

struct Names {
  std::string cluster;           // metadata.name
  std::string ns;                // metadata.namespace
  std::string statefulset;       // <cluster>
  std::string headless_service;  // <cluster>-headless
  std::string client_service;    // serviceTemplate.metadata.name or <cluster>
  std::string state_configmap;   // <cluster>-cluster-state
  std::string pdb;               // <cluster>
  std::string network_policy;    // <cluster>
};

Names NamesOf(const EtcdCluster& cluster);

// On an EtcdCluster, "true": without a peer Secret in the spec, the members
// still peer over https, with certificates each etcd makes itself
// (--peer-auto-tls). The aenix operator runs every cluster so; Quorum keeps it
// for a cluster it adopts (adopt.h), and a user may set it.
inline constexpr char kPeerAutoTlsAnnotation[] = "etcd.quorum.dev/peer-auto-tls";

// Which TLS the spec asks for (API.md security.tls).
struct TlsMode {
  bool peer = false;       // peerSecret + peerTrustedCASecret
  bool peer_auto = false;  // no peer Secret, kPeerAutoTlsAnnotation "true"
  bool server = false;     // serverSecret
  bool client = false;     // clientTrustedCASecret (+ operator's clientSecret)
};
TlsMode TlsOf(const EtcdCluster& cluster);

std::string MemberName(const EtcdCluster& cluster, int ordinal);  // <cluster>-<ordinal>
// "https" with peer TLS or peer auto TLS, else "http".
std::string PeerScheme(const EtcdCluster& cluster);
// https://<cluster>-<n>.<cluster>-headless.<ns>.svc:2380 (PeerScheme)
std::string PeerUrl(const EtcdCluster& cluster, int ordinal);
// The client URL of one member, and of the client Service.
std::string MemberClientUrl(const EtcdCluster& cluster, int ordinal);
std::string ServiceClientUrl(const EtcdCluster& cluster);

// Labels every owned object carries; the selector is the subset that
// identifies the member pods.
std::map<std::string, std::string> CommonLabels(const EtcdCluster& cluster);
std::map<std::string, std::string> SelectorLabels(const EtcdCluster& cluster);

// The controller owner reference to put on owned objects.
Json OwnerReference(const EtcdCluster& cluster);

// spec.replicas clamped at 0.
int DesiredReplicas(const EtcdCluster& cluster);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_NAMES_H_
