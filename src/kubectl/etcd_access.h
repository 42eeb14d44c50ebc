// How a client reaches an EtcdCluster, as the operator does
// (controllers/etcdcluster/access.cc): the client Service and each member's
// client URL, https when the spec has server TLS, the CA from
// api::ServerCaSecret's ca.crt, the client certificate from the clientSecret
// when the spec has client TLS, and with enableAuth the root credentials
// from status.authSecretName (else <cluster>-root-auth). Root's password
// works whatever the client certificate's CommonName: a token outranks it.
//
// Thread-safety: the parsers are pure; FetchEtcdAccess as kube::Client.
#ifndef QUORUM_SRC_KUBECTL_ETCD_ACCESS_H_
#define QUORUM_SRC_KUBECTL_ETCD_ACCESS_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/etcdcluster_types.h"
#include "src/kube/client.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct EtcdMemberEndpoint {
  std::string name;      // the pod
  std::string endpoint;  // scheme://<pod>.<cluster>-headless.<ns>.svc:2379
  bool operator==(const EtcdMemberEndpoint&) const = default;
};

struct EtcdAccess {
  std::string cluster;
  std::string scheme = "http";  // https with server TLS
  std::string service_host;     // <client service>.<ns>.svc
  int port = 2379;
  std::vector<EtcdMemberEndpoint> members;  // status.members, sorted by name
  std::string ca_pem;                       // server TLS: the CA
  std::string cert_pem, key_pem;            // client TLS: the client certificate
  std::string user, password;               // enableAuth: root's
};

// Names of the Secrets `cluster` needs read, each with the keys wanted:
// what FetchEtcdAccess reads (pure, for tests and messages).
struct EtcdSecretRefs {
  std::string ca;           // "" without server TLS (key ca.crt)
  std::string client_cert;  // "" without client TLS (tls.crt, tls.key)
  std::string auth;         // "" without enableAuth (username, password)
};
EtcdSecretRefs SecretRefsOf(const api::EtcdCluster& cluster);

// The access without its Secrets' contents: scheme, Service and members.
EtcdAccess AccessSkeleton(const api::EtcdCluster& cluster);

// Reads the cluster and its Secrets. Errors: InvalidArgument for a
// PostgresCluster target; NotFound naming the EtcdCluster; FailedPrecondition
// naming a Secret (and its spec field) that is missing or lacks a key;
// DataLoss when the cluster does not decode; else as the API answered.
absl::StatusOr<EtcdAccess> FetchEtcdAccess(kube::Client& client, const std::string& ns,
                                           const Target& target);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_ETCD_ACCESS_H_
