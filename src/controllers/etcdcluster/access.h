// How the operator authenticates to one cluster's etcd: TLS material from the
// Secrets the spec names, and with enableAuth the root credentials from the
// operator's own Secret (created on first use; see auth.h). Part of the
// observe phase; the only write is creating that Secret once.
//
// Problems come back as FailedPrecondition naming the Secret and the spec
// field, never with secret data; the reconciler waits for the Secret to
// change (the controller watches the Secrets ReadSecrets names).
//
// Thread-safety: safe for different clusters concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACCESS_H_
#define QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACCESS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/controllers/etcdcluster/names.h"
#include "src/etcd/client.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"

namespace quorum::etcdcluster {

// The Secrets the functions below read for `cluster` (not the pods' own TLS
// Secrets, which only the kubelet reads).
std::vector<std::string> ReadSecrets(const EtcdCluster& cluster);

// Fills cfg's CA (api::ServerCaSecret's ca.crt), client certificate and key
// from the cache.
absl::Status ReadTlsMaterial(const runtime::Cache& cache, const EtcdCluster& cluster,
                             etcd::ClientConfig& cfg);

// With enableAuth: fills cfg's username and password, creating the
// <cluster>-root-auth Secret the first time. When the client certificate's
// CommonName is "root" (aenix's cert-only root), the username is left empty:
// the operator then authenticates by its certificate, which etcd maps to the
// root user; cfg.password still holds the Secret's password, which
// EnsureAuthEnabled gives the root user for consumers that authenticate by
// password (a PostgresCluster's clusterRef, Patroni). A certificate with
// another CommonName is fine too: a token outranks the certificate.
absl::Status ReadAuthCredentials(kube::Client& client, const runtime::Cache& cache,
                                 const EtcdCluster& cluster, etcd::ClientConfig& cfg);

}  // namespace quorum::etcdcluster

#endif  // QUORUM_SRC_CONTROLLERS_ETCDCLUSTER_ACCESS_H_
