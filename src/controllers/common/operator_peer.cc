#include "src/controllers/common/operator_peer.h"

#include <nlohmann/json.hpp>

namespace quorum::controllers {

nlohmann::json OperatorPeerJson(const OperatorPeer& peer) {
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : peer.labels) labels[k] = v;
  nlohmann::json out = {{"podSelector", {{"matchLabels", labels}}}};
  out["namespaceSelector"] =
      peer.ns.empty() ? nlohmann::json::object()
                      : nlohmann::json{{"matchLabels", {{"kubernetes.io/metadata.name", peer.ns}}}};
  return out;
}

}  // namespace quorum::controllers
