// The operator's pods as a NetworkPolicy peer, for the policies the
// controllers build around the members they run (PostgresCluster,
// EtcdCluster): the Deployment's label app.kubernetes.io/name=quorum-operator
// in the operator's namespace. Outside a pod (the namespace unknown) that
// label in any namespace; the operator's own connections then come from a
// node, which NetworkPolicy always admits.
// Thread-safety: a value type and a pure function.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_PEER_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_PEER_H_

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace quorum::controllers {

struct OperatorPeer {
  std::string ns;  // "" when unknown: the labels in any namespace
  std::map<std::string, std::string> labels = {{"app.kubernetes.io/name", "quorum-operator"}};
};

// {podSelector: {matchLabels}, namespaceSelector: {} or the namespace by its
// kubernetes.io/metadata.name label}.
nlohmann::json OperatorPeerJson(const OperatorPeer& peer);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_OPERATOR_PEER_H_
