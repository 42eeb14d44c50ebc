// The machine-readable document of `kubectl quorum status -o json`. Its shape
// is stable (docs/kubectl-quorum.md): apiVersion "kubectl-quorum/v1", kind
// EtcdClusterStatus or PostgresClusterStatus, camelCase keys, every key
// always present (empty string, empty list or null when unknown), times as
// RFC 3339 strings, no ages (they depend on when it is read).
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_RENDER_JSON_H_
#define QUORUM_SRC_KUBECTL_RENDER_JSON_H_

#include <nlohmann/json.hpp>

#include "src/kubectl/status_view.h"

namespace quorum::kubectl {

inline constexpr char kJsonApiVersion[] = "kubectl-quorum/v1";

nlohmann::json RenderJson(const EtcdStatusView& view);
nlohmann::json RenderJson(const PostgresStatusView& view);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_RENDER_JSON_H_
