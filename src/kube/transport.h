// Transport: HTTP(S) to one API server over libcurl, with the config's TLS
// material taken from memory, the credential provider's token or client
// certificate on every request, HTTP/2 where the server offers it, and one
// connection cache shared by all requests so that thousands of requests reuse
// a handful of connections.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_KUBE_TRANSPORT_H_
#define QUORUM_SRC_KUBE_TRANSPORT_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/base/clock.h"
#include "src/kube/config.h"
#include "src/kube/credentials.h"

namespace quorum::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // absolute path plus query string, e.g. /api/v1/pods?limit=5
  std::string body;
  std::string content_type;  // sent only with a body
  std::string accept = "application/json";
  // Total time allowed; nullopt uses the config's timeout (streams: none).
  std::optional<absl::Duration> timeout;
  // The Authorization header's value for this request (e.g. "Basic ...");
  // empty: the config's credentials. Never logged.
  std::string authorization;
};

struct HttpResponse {
  long code = 0;
  std::string body;
  std::string retry_after;  // the Retry-After header, if any
};

struct TransportStats {
  int64_t requests = 0;
  int64_t connections_opened = 0;  // new TCP connections (reuse keeps this low)
};

class Transport {
 public:
  // Errors: InvalidArgument when the server URL is not http(s)://host[:port][/prefix].
  static absl::StatusOr<std::unique_ptr<Transport>> Create(const RestConfig& config, Clock& clock);
  ~Transport();

  // Sends one request and returns the response whatever its HTTP code.
  // After a 401 it refreshes refreshable credentials and retries once.
  // Errors: Unavailable (connection/TLS failure), DeadlineExceeded (timeout),
  // and the credential provider's errors.
  absl::StatusOr<HttpResponse> Do(const HttpRequest& request);

  // Sends a long request (a watch) and hands each chunk of a 2xx body to
  // `on_data` as it arrives; a non-2xx body is collected in the result
  // instead. Ends when the server closes the stream (OK, with the code),
  // when `on_data` returns false (OK), or when `cancel` fires (Cancelled).
  absl::StatusOr<HttpResponse> Stream(const HttpRequest& request,
                                      const std::function<bool(std::string_view)>& on_data,
                                      Cancellation* cancel);

  TransportStats stats() const;
  const RestConfig& config() const { return config_; }

 private:
  class Impl;
  Transport(const RestConfig& config, std::unique_ptr<Impl> impl);

  RestConfig config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_TRANSPORT_H_
