// `kubectl quorum etcdctl CLUSTER [--host H] [--port P] -- ARGS...`: runs the
// local etcdctl against an EtcdCluster's client Service with the access the
// operator itself uses (etcd_access.h). The CA, client certificate and key go
// into in-memory files (child_process.h) named by --cacert/--cert/--key; the
// root credentials only into the environment (ETCDCTL_USER,
// ETCDCTL_PASSWORD): no secret in argv, so none in `ps` or a shell history.
// ETCDCTL_* variables that would conflict with the flags given are removed
// from etcdctl's environment.
//
// The endpoint is the Service's DNS name <service>.<ns>.svc:2379, which the
// machine must resolve (cluster DNS); --host/--port replace it (e.g. a
// port-forward). etcdctl checks the certificate against that host: an
// address the certificate does not name fails verification.
//
// Thread-safety: the builders are pure; RunEtcdctl only from a
// single-threaded program (it replaces the process).
#ifndef QUORUM_SRC_KUBECTL_ETCDCTL_COMMAND_H_
#define QUORUM_SRC_KUBECTL_ETCDCTL_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/kube/client.h"
#include "src/kubectl/child_process.h"
#include "src/kubectl/etcd_access.h"
#include "src/kubectl/target.h"

namespace quorum::kubectl {

struct EtcdctlOptions {
  std::string ns;
  Target target;
  std::string host;  // "" the Service's DNS name
  std::string port;  // "" 2379
  std::vector<std::string> args;
};

// Where the TLS files are for etcdctl ("" when the access has none).
struct EtcdctlFiles {
  std::string ca, cert, key;
};

struct EtcdctlInvocation {
  std::vector<std::string> argv;  // etcdctl, --endpoints and TLS file flags, then args
  EnvChanges env;                 // credentials; removed conflicting variables
};

// scheme://host:port of the Service, or of --host/--port.
std::string ServiceEndpoint(const EtcdAccess& access, const std::string& host,
                            const std::string& port);

// etcdctl's --dial-timeout unless the arguments give one: it bounds the
// authentication too, which takes seconds on a busy member.
inline constexpr char kDialTimeout[] = "30s";

// The invocation for `endpoints` (comma-separated). The password is only in
// env, as ETCDCTL_PASSWORD; without auth ETCDCTL_USER/PASSWORD are removed.
EtcdctlInvocation BuildEtcdctlInvocation(const EtcdAccess& access, const std::string& endpoints,
                                         const EtcdctlFiles& files,
                                         const std::vector<std::string>& args);

// Holds the access's TLS material in memfds, as /proc/self/fd/N paths.
// Errors: Internal when a memfd cannot be made.
absl::StatusOr<EtcdctlFiles> HoldTlsFiles(const EtcdAccess& access);

// Errors: InvalidArgument for a bad --port; NotFound (exit 2) when etcdctl
// is not on PATH; as FetchEtcdAccess; Internal when exec fails. Returns only
// on failure: etcdctl's exit code is the command's.
absl::Status RunEtcdctl(kube::Client& client, const EtcdctlOptions& options);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_ETCDCTL_COMMAND_H_
