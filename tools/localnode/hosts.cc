#include "tools/localnode/hosts.h"

#include "absl/strings/str_cat.h"

namespace quorum::localnode {

std::string RenderHosts(const std::vector<PodName>& pods, const std::vector<ServiceName>& services,
                        const std::string& ns, const std::string& self_hostname,
                        const std::string& self_fqdn, const std::string& self_ip,
                        const std::string& extra) {
  std::string out = "# Written by quorum-localnode.\n127.0.0.1\tlocalhost\n::1\tlocalhost\n";
  if (!self_ip.empty()) {
    absl::StrAppend(&out, self_ip, "\t");
    if (!self_fqdn.empty()) absl::StrAppend(&out, self_fqdn, " ");
    absl::StrAppend(&out, self_hostname, "\n");
  }
  for (const PodName& p : pods) {
    if (p.subdomain.empty() || p.ip.empty()) continue;
    const std::string base = absl::StrCat(p.hostname, ".", p.subdomain, ".", p.ns, ".svc");
    absl::StrAppend(&out, p.ip, "\t", base, ".cluster.local ", base);
    if (p.ns == ns) absl::StrAppend(&out, " ", p.hostname, ".", p.subdomain);
    absl::StrAppend(&out, "\n");
  }
  for (const ServiceName& s : services) {
    const std::string base = absl::StrCat(s.name, ".", s.ns, ".svc");
    std::string names = absl::StrCat(base, ".cluster.local ", base, " ", s.name, ".", s.ns);
    if (s.ns == ns) absl::StrAppend(&names, " ", s.name);
    if (!s.cluster_ip.empty() && s.cluster_ip != "None") {
      absl::StrAppend(&out, s.cluster_ip, "\t", names, "\n");
    } else {
      for (const std::string& ip : s.pod_ips) absl::StrAppend(&out, ip, "\t", names, "\n");
    }
  }
  absl::StrAppend(&out, extra);
  return out;
}

}  // namespace quorum::localnode
