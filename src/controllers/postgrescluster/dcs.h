// Where a PostgresCluster's Patroni keeps its leader lock, resolved against
// the objects it references, with the checks API.md asks for: a TLS Secret
// must hold ca.crt, tls.crt and tls.key, an auth Secret username and
// password; a clusterRef must name an EtcdCluster of the same namespace that
// is Ready, whose status then gives the endpoint, TLS and credentials.
// A problem leaves `ready` false with a DCSReady reason and a message that
// names the field and the object (never Secret data).
//
// Thread-safety: pure functions (the lookup is the caller's cache).
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/controllers/postgrescluster/names.h"
#include "src/patroni/config.h"

namespace quorum::postgrescluster {

// Reads one object of the cluster's namespace: ("Secret"|"EtcdCluster", name)
// → the object or nullptr.
using Lookup =
    std::function<std::shared_ptr<const Json>(const std::string& kind, const std::string& name)>;

struct DcsResolution {
  bool ready = false;
  std::string reason;   // DCSReady reason: Resolved, SecretNotFound, SecretIncomplete,
                        // EtcdClusterNotFound, EtcdClusterNotReady
  std::string message;  // for the condition and the Warning event
  std::variant<patroni::KubernetesDcs, patroni::EtcdDcs> dcs;
  std::string tls_secret;              // mounted at kEtcdTlsDir; "" when none
  std::string auth_secret;             // username/password as Patroni env; "" when none
  std::vector<std::string> etcd_urls;  // client URLs, for the operator's own reads
};

DcsResolution ResolveDcs(const PostgresCluster& cluster, const Lookup& lookup);

// Names of the Secrets and of the EtcdCluster the spec references directly
// (for the indexes that turn their changes into reconciles).
std::vector<std::string> ReferencedSecrets(const PostgresCluster& cluster);
std::string ReferencedEtcdCluster(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_DCS_H_
