// Whether a PostgresCluster's DCS keeps strangers out of Patroni's keys
// (issue 34): the leader key, the configuration with its pg_hba and the
// members' records decide who is primary, so anyone who can write them can
// take the cluster over or stop it.
//
//   * kubernetes DCS: secure (reason KubernetesApi) — the keys are objects of
//     the cluster's namespace, guarded by RBAC;
//   * clusterRef: secure (EtcdTlsAndAuth) only when the EtcdCluster serves
//     clients over TLS (security.tls.serverSecret) and has enableAuth (then
//     the pods get an etcd user limited to their prefix); otherwise
//     EtcdWithoutTls, EtcdWithoutAuth or EtcdWithoutTlsAndAuth, and
//     EtcdClusterNotFound when it does not exist;
//   * endpoints: secure (UserManagedEtcd) with https:// and credentials
//     (tlsSecret or authSecret), whose reach the user manages; otherwise
//     EtcdWithoutTls (http://) or EtcdWithoutCredentials.
//
// The same verdict is the DCSSecure condition and, when not secure, an
// admission warning naming spec.patroni.dcs.etcd.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_DCS_SECURITY_H_
#define QUORUM_API_POSTGRESCLUSTER_DCS_SECURITY_H_

#include <string>

#include "api/etcdcluster_types.h"
#include "api/postgrescluster_types.h"

namespace quorum::api {

struct DcsSecurity {
  bool secure = false;
  std::string reason;
  std::string message;  // names the field and what to change
};

// `ref`: the EtcdCluster spec.patroni.dcs.etcd.clusterRef names, or null
// when it does not exist (ignored without a clusterRef).
DcsSecurity DcsSecurityOf(const PostgresClusterSpec& spec, const EtcdCluster* ref);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_DCS_SECURITY_H_
