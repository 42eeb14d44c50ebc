// Where a PostgresCluster's Patroni keeps its leader lock, resolved against
// the objects it references, with the checks API.md asks for: a TLS Secret
// must hold ca.crt, tls.crt and tls.key, an auth Secret username and
// password; a clusterRef must name an EtcdCluster of the same namespace that
// is Ready, whose status then gives the endpoint, TLS and credentials. With
// auth on, the pods get their own etcd user (PodEtcdAccess) and, when etcd
// wants client certificates, their own certificate: possible only when the
// EtcdCluster's clientTrustedCASecret holds the CA's key (tls.key beside a
// CA tls.crt, or ca.key beside ca.crt); otherwise DCSReady is False with
// reason EtcdClientCertUnavailable, since the pods would need the
// operator's own certificate.
// A problem leaves `ready` false with a DCSReady reason and a message that
// names the field and the object (never Secret data).
//
// Thread-safety: pure functions (the lookup is the caller's cache).
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/postgrescluster_dcs_security.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/patroni/config.h"

namespace quorum::postgrescluster {

// Reads one object of the cluster's namespace: ("Secret"|"EtcdCluster", name)
// → the object or nullptr.
using Lookup =
    std::function<std::shared_ptr<const Json>(const std::string& kind, const std::string& name)>;

// clusterRef to an EtcdCluster with auth on: the pods' own etcd user, whose
// role may read and write only this cluster's Patroni keys, made by
// EnsurePodEtcdAccess (etcd_user.h). The pods never get root or the
// operator's client certificate.
struct PodEtcdAccess {
  std::string user;             // etcd user and role: EtcdUserName
  std::string key_prefix;       // Patroni's keys, patroni::ClusterKeyPrefix
  std::string password_secret;  // EtcdUserSecretName: username, password (created once)
  // When the EtcdCluster requires client certificates: the pods' own,
  // EtcdClientSecretName, issued from `client_ca_secret` (which holds the
  // CA's key); its ca.crt comes from `server_ca_secret` and verifies the
  // members. All "" when the EtcdCluster asks for no client certificate.
  std::string cert_secret;
  std::string client_ca_secret;
  std::string server_ca_secret;
};

struct DcsResolution {
  bool ready = false;
  std::string reason;   // DCSReady reason: Resolved, SecretNotFound, SecretIncomplete,
                        // EtcdClusterNotFound, EtcdClusterNotReady,
                        // EtcdClientCertUnavailable (and EtcdUserNotReady, set by
                        // EnsurePodEtcdAccess)
  std::string message;  // for the condition and the Warning event
  std::variant<patroni::KubernetesDcs, patroni::EtcdDcs> dcs;
  std::string tls_secret;              // mounted at kEtcdTlsDir; "" when none
  std::string auth_secret;             // username/password as Patroni env; "" when none
  std::vector<std::string> etcd_urls;  // client URLs, for the operator's own reads
  // What the operator itself connects with (leader reads, key cleanup, the
  // pods' etcd user): the pods' Secrets, except with `pod_access`, where
  // these are the EtcdCluster's root credentials and operator certificate.
  std::string operator_tls_secret;
  std::string operator_auth_secret;
  std::optional<PodEtcdAccess> pod_access;
  // The operator's own access (etcd_urls, dcs's hosts, operator_*) is
  // resolved, also when the pods' is not (ready false): enough to clean up.
  bool operator_access = false;
  // Whether strangers are kept out of Patroni's keys (the DCSSecure
  // condition), resolved or not.
  api::DcsSecurity security;
};

DcsResolution ResolveDcs(const PostgresCluster& cluster, const Lookup& lookup);

// Names of the Secrets and of the EtcdCluster the spec references directly
// (for the indexes that turn their changes into reconciles).
std::vector<std::string> ReferencedSecrets(const PostgresCluster& cluster);
std::string ReferencedEtcdCluster(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_
