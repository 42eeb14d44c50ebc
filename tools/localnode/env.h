// A container's environment and command line as the kubelet computes them:
// env and envFrom (fieldRef, resourceFieldRef, secretKeyRef, configMapKeyRef,
// configMapRef/secretRef with prefixes), the Kubernetes service variables,
// and $(VAR) expansion in values, command and args ("$$" escapes). Pure
// except for the object lookup the caller supplies.
#ifndef QUORUM_TOOLS_LOCALNODE_ENV_H_
#define QUORUM_TOOLS_LOCALNODE_ENV_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "src/kube/client.h"

namespace quorum::localnode {

using kube::Json;

// Fetches a Secret or ConfigMap ("secrets" / "configmaps") of the pod's
// namespace; NotFound when it does not exist.
using ObjectLookup =
    std::function<absl::StatusOr<Json>(const std::string& resource, const std::string& name)>;

// "metadata.name", "metadata.labels['x']", "status.podIP", ... of `pod`.
absl::StatusOr<std::string> FieldRef(const Json& pod, const std::string& path);

// Expands $(NAME) from `vars`; unknown references stay as written, "$$" → "$".
std::string Expand(const std::string& in,
                   const std::vector<std::pair<std::string, std::string>>& vars);

// The ordered environment of `container` in `pod` (whose status.podIP is
// set). `base` comes first (PATH, KUBERNETES_SERVICE_*): later entries win.
// Errors: a missing non-optional Secret/ConfigMap or key (FailedPrecondition,
// naming it), an unsupported fieldRef.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ContainerEnv(
    const Json& pod, const Json& container,
    const std::vector<std::pair<std::string, std::string>>& base, const ObjectLookup& lookup);

// Decodes a Secret's base64 `data` values (and merges `stringData`).
std::map<std::string, std::string> SecretData(const Json& secret);
// A ConfigMap's data (and binaryData, decoded).
std::map<std::string, std::string> ConfigMapData(const Json& configmap);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_ENV_H_
