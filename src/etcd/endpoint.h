// Endpoint: an etcd client URL (http://host:port or https://host:port) as a
// gRPC channel needs it: the target "host:port" and whether to speak TLS.
// A path after the authority is ignored (gRPC has none); without a port the
// URL's default applies (80, 443), as it would for an HTTP client.
// Pure, thread-safe.
#ifndef QUORUM_SRC_ETCD_ENDPOINT_H_
#define QUORUM_SRC_ETCD_ENDPOINT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace quorum::etcd {

struct Endpoint {
  std::string target;  // "host:port", "[v6]:port"
  bool tls = false;
  bool operator==(const Endpoint&) const = default;
};

// InvalidArgument when `url` has no http/https scheme or no host.
absl::StatusOr<Endpoint> ParseEndpoint(std::string_view url);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_ENDPOINT_H_
