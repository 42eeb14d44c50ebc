// The DCS leader of a PostgresCluster, read by the operator for the role
// labels (issue 14.7: the DCS leader key is the only truth for `primary`).
// With the etcd DCS: the Patroni leader key, through an etcd client made from
// the resolved DCS (its TLS and auth Secrets), with a short deadline. With the
// kubernetes DCS: the `leader` annotation of the leader Endpoints or ConfigMap
// Patroni keeps (dcs_objects.h), from the informer cache.
//
// Thread-safety: EtcdClientConfigFor is pure; ReadDcsLeader does I/O and is
// safe to call concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/dcs.h"
#include "src/etcd/client.h"

namespace quorum::postgrescluster {

// A Secret's value by (Secret name, key); "" when missing.
using SecretValue = std::function<std::string(const std::string& secret, const char* key)>;

// The operator's etcd client configuration for an etcd DCS `dcs` (ready):
// its endpoints with their scheme, the operator's TLS Secret's ca.crt (and
// tls.crt / tls.key when present), the operator's auth Secret's
// username/password (DcsResolution::operator_*).
// InvalidArgument when `dcs` is not an etcd DCS.
absl::StatusOr<etcd::ClientConfig> EtcdClientConfigFor(const DcsResolution& dcs,
                                                       const SecretValue& secret,
                                                       absl::Duration timeout);

// The leader key's member name ("" when no member holds it), or nullopt when
// it cannot be read now (not an etcd DCS, DCS not ready, etcd unreachable
// within `timeout`, ...): the role labels then fall back to the members' word.
std::optional<std::string> ReadDcsLeader(const PostgresCluster& cluster, const DcsResolution& dcs,
                                         const SecretValue& secret, absl::Duration timeout);

// The kubernetes DCS leader from Patroni's leader object, the Endpoints or
// ConfigMap of LeaderObjectName (nullptr: not known yet -> nullopt): its `leader` annotation, ""
// when absent or empty (Patroni clears it when the leader steps down). An expired record of a dead
// leader still names it: that member then is unreachable, and no member is routed as primary until
// the new leader writes its name.
std::optional<std::string> LeaderFromObject(const Json* object);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_LEADER_H_
