// spec.networkPolicy of Quorum's resources: {enabled, <peers>} where the peers
// (PostgresCluster postgresFrom, EtcdCluster clientFrom) are
// networking.k8s.io/v1 NetworkPolicyPeers kept as written and copied verbatim
// into the NetworkPolicy the operator builds. So everything the API server
// would refuse in that policy (a peer with nothing set, an ipBlock beside a
// selector, a bad CIDR or label, a selector operator) is refused at admission
// first, naming the field of the resource instead of failing every reconcile.
// One schema and one set of rules for both resources.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_NETWORK_POLICY_PEERS_H_
#define QUORUM_API_NETWORK_POLICY_PEERS_H_

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "api/field_error.h"

namespace quorum::api {

// At most this many peers in one list (the policy stays readable, and the
// firewall's rules small).
inline constexpr size_t kMaxNetworkPolicyPeers = 64;

// An IPv4 or IPv6 CIDR in canonical form (no host bits set), e.g. 10.0.0.0/8.
bool IsCanonicalCidr(const std::string& s);

// spec.networkPolicy of `spec`, when present: an object whose `enabled` is a
// boolean and whose `peers_key` ("postgresFrom", "clientFrom") is a list of
// at most kMaxNetworkPolicyPeers valid peers. Errors name
// "spec.networkPolicy.<peers_key>[i]...".
void ValidateNetworkPolicySpec(const nlohmann::json& spec, const std::string& peers_key,
                               std::vector<FieldError>& errors);

// The OpenAPI schema of a peers list (an array of NetworkPolicyPeer, with the
// CRD's own CEL rules for what a peer must hold); `description` says who the
// peers are admitted to and what absent and [] mean.
nlohmann::json NetworkPolicyPeersSchema(const char* description);

}  // namespace quorum::api

#endif  // QUORUM_API_NETWORK_POLICY_PEERS_H_
