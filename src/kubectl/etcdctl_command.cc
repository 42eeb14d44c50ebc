#include "src/kubectl/etcdctl_command.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace quorum::kubectl {

std::string ServiceEndpoint(const EtcdAccess& access, const std::string& host,
                            const std::string& port) {
  const std::string h = host.empty() ? access.service_host : host;
  const bool ipv6 = h.find(':') != std::string::npos;
  return absl::StrCat(access.scheme, "://", ipv6 ? "[" : "", h, ipv6 ? "]" : "", ":",
                      port.empty() ? std::to_string(access.port) : port);
}

EtcdctlInvocation BuildEtcdctlInvocation(const EtcdAccess& access, const std::string& endpoints,
                                         const EtcdctlFiles& files,
                                         const std::vector<std::string>& args) {
  EtcdctlInvocation inv{.argv = {"etcdctl", "--endpoints=" + endpoints}};
  if (!files.ca.empty()) inv.argv.push_back("--cacert=" + files.ca);
  if (!files.cert.empty()) inv.argv.push_back("--cert=" + files.cert);
  if (!files.key.empty()) inv.argv.push_back("--key=" + files.key);
  // etcdctl authenticates (and shakes hands) within its dial timeout, 2 s by
  // default: bcrypt on a busy member takes longer, so give it 30 s unless
  // the user names one.
  const bool dial_timeout_given = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return absl::StartsWith(a, "--dial-timeout");
  });
  if (!dial_timeout_given) inv.argv.push_back(std::string("--dial-timeout=") + kDialTimeout);
  inv.argv.insert(inv.argv.end(), args.begin(), args.end());
  // etcdctl refuses a variable that a flag also sets: ours win. (No
  // ETCDCTL_API: etcdctl 3.6 speaks only v3 and warns about it on stderr.)
  inv.env = {{"ETCDCTL_ENDPOINTS", ""},
             {"ETCDCTL_DIAL_TIMEOUT", ""},
             {"ETCDCTL_CACERT", ""},
             {"ETCDCTL_CERT", ""},
             {"ETCDCTL_KEY", ""},
             {"ETCDCTL_USER", access.user},
             {"ETCDCTL_PASSWORD", access.user.empty() ? "" : access.password}};
  return inv;
}

absl::StatusOr<EtcdctlFiles> HoldTlsFiles(const EtcdAccess& access) {
  EtcdctlFiles files;
  auto hold = [](const char* label, const std::string& pem, std::string& path) -> absl::Status {
    if (pem.empty()) return absl::OkStatus();
    absl::StatusOr<int> fd = HoldInMemory(label, pem);
    if (!fd.ok()) return fd.status();
    path = absl::StrCat("/proc/self/fd/", *fd);
    return absl::OkStatus();
  };
  if (absl::Status s = hold("quorum-etcd-ca", access.ca_pem, files.ca); !s.ok()) return s;
  if (absl::Status s = hold("quorum-etcd-cert", access.cert_pem, files.cert); !s.ok()) return s;
  if (absl::Status s = hold("quorum-etcd-key", access.key_pem, files.key); !s.ok()) return s;
  return files;
}

absl::Status RunEtcdctl(kube::Client& client, const EtcdctlOptions& o) {
  int port = 0;
  if (!o.port.empty() && (!absl::SimpleAtoi(o.port, &port) || port < 1 || port > 65535)) {
    return absl::InvalidArgumentError(absl::StrCat("--port \"", o.port, "\": want 1..65535"));
  }
  const std::string etcdctl = FindOnPath("etcdctl");
  if (etcdctl.empty()) {
    return absl::NotFoundError(  // a usage error: exit 2
        "etcdctl not found on PATH: install etcd's client (Debian: etcd-client)");
  }
  absl::StatusOr<EtcdAccess> access = FetchEtcdAccess(client, o.ns, o.target);
  if (!access.ok()) return access.status();
  absl::StatusOr<EtcdctlFiles> files = HoldTlsFiles(*access);
  if (!files.ok()) return files.status();
  const EtcdctlInvocation inv =
      BuildEtcdctlInvocation(*access, ServiceEndpoint(*access, o.host, o.port), *files, o.args);
  return ExecReplacing(etcdctl, inv.argv, inv.env);
}

}  // namespace quorum::kubectl
