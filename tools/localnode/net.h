// The node's network: one bridge with the node address (e.g. 10.244.0.1/24),
// one network namespace per pod with a veth on that bridge and an address
// from the same range, and the ClusterIPs the service proxy owns as /32
// addresses on the bridge. Pods get routes to the pod range and the service
// range only (no default route); the host gets an `unreachable` route for
// the service range so that a ClusterIP nobody serves fails at once instead
// of leaving the machine. Names carry the instance, so a restart (or
// `quorum-localnode cleanup`) removes what a crashed run left.
// Uses iproute2's `ip`. Thread-safe.
#ifndef QUORUM_TOOLS_LOCALNODE_NET_H_
#define QUORUM_TOOLS_LOCALNODE_NET_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace quorum::localnode {

struct NetworkConfig {
  std::string instance = "qln";         // at most 10 characters
  std::string pod_prefix = "10.244.0";  // the /24 of pods; .1 is the bridge
  std::string service_cidr = "10.0.0.0/24";
};

class Network {
 public:
  explicit Network(NetworkConfig config) : config_(std::move(config)) {}

  const NetworkConfig& config() const { return config_; }
  std::string bridge() const { return config_.instance + "-br"; }
  std::string node_ip() const { return config_.pod_prefix + ".1"; }
  std::string NetnsName(const std::string& pod_uid) const;
  static std::string NetnsPath(const std::string& name) { return "/run/netns/" + name; }

  // Removes leftovers of this instance, then creates the bridge.
  absl::Status Setup();
  // Kills the processes of every namespace of this instance and removes the
  // namespaces, the service addresses, the route and the bridge. Idempotent.
  void Teardown();

  // Creates the pod's namespace (if missing) and returns its address.
  absl::StatusOr<std::string> AddPod(const std::string& pod_uid);
  void RemovePod(const std::string& pod_uid);

  absl::Status AddServiceIp(const std::string& ip);
  void RemoveServiceIp(const std::string& ip);

 private:
  const NetworkConfig config_;
  absl::Mutex mu_;
  std::map<std::string, std::string> pod_ips_ ABSL_GUARDED_BY(mu_);  // uid → ip
  std::set<std::string> service_ips_ ABSL_GUARDED_BY(mu_);
};

// Removes everything an instance named `instance` left behind.
void CleanupInstance(const NetworkConfig& config);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_NET_H_
