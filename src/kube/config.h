// RestConfig: everything needed to reach one API server as one user, loaded
// from a kubeconfig file (like kubectl and client-go) or from the pod's
// service-account mount (in-cluster). Pure data; loading functions are
// thread-compatible and never throw.
#ifndef QUORUM_SRC_KUBE_CONFIG_H_
#define QUORUM_SRC_KUBE_CONFIG_H_

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace quorum::kube {

// A kubeconfig `users[].user.exec` credential plugin.
struct ExecConfig {
  std::string api_version;  // e.g. client.authentication.k8s.io/v1
  std::string command;      // resolved against the kubeconfig's folder if relative with a '/'
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
};

struct RestConfig {
  std::string server;  // scheme://host:port[/prefix], never ends with '/'
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;           // CA bundle bytes; empty means the system trust store
  std::string client_cert_pem;  // client certificate bytes (file or inline data)
  std::string client_key_pem;
  std::string bearer_token;       // static token
  std::string bearer_token_file;  // token re-read from this file (rotating tokens)
  std::optional<ExecConfig> exec;
  std::string namespace_name;  // the context's namespace ("default" when unset)
  std::string user_agent = "quorum";
  double qps = 50;  // client-side rate limit; qps <= 0 disables it
  int burst = 100;
  absl::Duration timeout = absl::Seconds(30);  // per request, watches excluded
  absl::Duration token_file_reread = absl::Minutes(1);
};

// Parses kubeconfig YAML text. Relative file paths (certificate-authority,
// client-certificate, client-key, tokenFile, exec command) resolve against
// `base_dir`, the kubeconfig's folder. `context` empty means current-context.
// Errors: InvalidArgument for malformed YAML or a missing/unknown context,
// cluster or user (the message names the entry); NotFound when a referenced
// file is missing.
absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml,
                                           const std::filesystem::path& base_dir,
                                           std::string_view context = "");

// Reads and parses the kubeconfig at `path`. Errors: as ParseKubeconfig, and
// NotFound when the file does not exist.
absl::StatusOr<RestConfig> LoadKubeconfigFile(const std::filesystem::path& path,
                                              std::string_view context = "");

// Where an in-cluster process finds its API server and identity.
struct InClusterEnv {
  std::string host;  // KUBERNETES_SERVICE_HOST
  std::string port;  // KUBERNETES_SERVICE_PORT
  std::filesystem::path secrets_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// The process's own in-cluster environment.
InClusterEnv InClusterEnvFromProcess();

// Builds the in-cluster config: server from host/port (IPv6 bracketed), CA
// from ca.crt, namespace from `namespace`, token as bearer_token_file so that
// rotated tokens are picked up. Errors: FailedPrecondition when not in a
// cluster (host/port unset), NotFound when the token or CA file is missing.
absl::StatusOr<RestConfig> InClusterConfig(const InClusterEnv& env);

// client-go's default order: $KUBECONFIG (first existing entry of a
// ':'-separated list), then ~/.kube/config, then in-cluster.
absl::StatusOr<RestConfig> LoadDefaultConfig(std::string_view context = "");

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_CONFIG_H_
