// The name service of the node: hosts files standing in for cluster DNS.
// Pods get "<hostname>.<subdomain>.<ns>.svc[.cluster.local]" (when they have
// a subdomain), Services with a ClusterIP get "<name>.<ns>.svc[.cluster.local]",
// headless Services their pods' addresses; names of the reader's own
// namespace also resolve in their short forms ("<name>", "<host>.<subdomain>").
// Pure.
#ifndef QUORUM_TOOLS_LOCALNODE_HOSTS_H_
#define QUORUM_TOOLS_LOCALNODE_HOSTS_H_

#include <string>
#include <vector>

namespace quorum::localnode {

struct PodName {
  std::string ns, hostname, subdomain, ip;
};
struct ServiceName {
  std::string ns, name, cluster_ip;  // "None" or "" for headless
  std::vector<std::string> pod_ips;  // for headless Services
};

// A hosts file for a reader in namespace `ns` ("" for the host: FQDNs only),
// whose own name `self_hostname` maps to `self_ip` (empty: none). `extra` is
// appended as is (e.g. the host's original /etc/hosts).
std::string RenderHosts(const std::vector<PodName>& pods, const std::vector<ServiceName>& services,
                        const std::string& ns, const std::string& self_hostname,
                        const std::string& self_fqdn, const std::string& self_ip,
                        const std::string& extra);

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_HOSTS_H_
