// A pod's volumes as host directories under the pod's folder, and the bind
// mounts that put them at each container's mountPaths. Supported: emptyDir,
// hostPath, persistentVolumeClaim (the bound PV's local path), secret,
// configMap, downwardAPI, projected (secret, configMap, downwardAPI,
// serviceAccountToken via TokenRequest, kube-root-ca.crt falling back to the
// API server's CA) and the automatic service-account mount at
// /var/run/secrets/kubernetes.io/serviceaccount (the control plane runs
// without the ServiceAccount admission plugin, so the node adds it).
#ifndef QUORUM_TOOLS_LOCALNODE_VOLUMES_H_
#define QUORUM_TOOLS_LOCALNODE_VOLUMES_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/kube/client.h"
#include "tools/localnode/process.h"

namespace quorum::localnode {

using kube::Json;

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";
inline constexpr char kAutoTokenVolume[] = "kube-api-access-localnode";

struct VolumeContext {
  kube::Client* client = nullptr;
  std::string pod_dir;  // the pod's folder on the host
  std::string ca_pem;   // the API server's CA (ca.crt of token mounts)
  std::optional<gid_t> fs_group;
};

// Materialises every volume of `pod` (plus the automatic token volume) and
// returns volume name → host path. Errors: a missing Secret/ConfigMap or an
// unbound claim (FailedPrecondition, naming it; the caller retries).
absl::StatusOr<std::map<std::string, std::string>> PrepareVolumes(const VolumeContext& ctx,
                                                                  const Json& pod);

// The bind mounts of `container` (creating the mount points on the host).
// Adds the automatic token mount unless the container mounts something there.
absl::StatusOr<std::vector<BindMount>> ContainerMounts(
    const Json& pod, const Json& container, const std::map<std::string, std::string>& volumes);

// Where the local provisioner keeps the data of PersistentVolume `pv`.
std::string PersistentVolumePath(const Json& pv);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_VOLUMES_H_
