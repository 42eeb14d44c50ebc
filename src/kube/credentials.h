// CredentialProvider: yields the credentials to put on the next request —
// a static token, a token file re-read when it may have rotated, or the
// output of an exec credential plugin cached until shortly before it expires.
// Thread-safety: Get() and Invalidate() may be called from any thread.
#ifndef QUORUM_SRC_KUBE_CREDENTIALS_H_
#define QUORUM_SRC_KUBE_CREDENTIALS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/base/clock.h"
#include "src/kube/config.h"

namespace quorum::kube {

struct Credentials {
  std::string bearer_token;     // empty: no Authorization header
  std::string client_cert_pem;  // from an exec plugin; empty: use the config's
  std::string client_key_pem;
  std::optional<absl::Time> expiry;  // when the plugin said these expire
};

class CredentialProvider {
 public:
  virtual ~CredentialProvider() = default;
  // Errors: NotFound (token file missing), Unavailable (exec plugin failed,
  // its stderr in the message), InvalidArgument (plugin printed bad output).
  virtual absl::StatusOr<Credentials> Get() = 0;
  // Called after a 401: drop any cached credential so the next Get() refreshes.
  virtual void Invalidate() {}
};

// Chooses the provider for `config`: exec plugin, else token file, else the
// static token (possibly empty). `clock` must outlive the provider.
std::unique_ptr<CredentialProvider> NewCredentialProvider(const RestConfig& config, Clock& clock);

// Parses an ExecCredential (client.authentication.k8s.io/v1 or v1beta1) as a
// plugin prints it on stdout. Errors: InvalidArgument naming what is wrong.
absl::StatusOr<Credentials> ParseExecCredential(std::string_view json_text);

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_CREDENTIALS_H_
