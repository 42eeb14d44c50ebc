// The operator's two HTTP servers, each serving on a background thread:
//
//  * ProbeServer (plain HTTP): GET /metrics (the Registry in the Prometheus
//    text format), /healthz and /readyz (200 "ok" when every check passes,
//    else 500 listing the failing checks and their messages; `?verbose` lists
//    every check).
//  * WebhookServer (HTTPS only): admission webhooks. Each registered path
//    takes a POSTed admission.k8s.io/v1 AdmissionReview (application/json),
//    calls its AdmissionHandler (admission.h) and answers with the
//    AdmissionReview response. Malformed reviews get HTTP 400, other methods
//    405, other content types 415; a handler that throws is answered with a
//    denial (code 500) and the server keeps serving. The serving certificate
//    is re-read from cert_file/key_file when their content changes (checked
//    at most once per reload_interval, on the next TLS handshake), so rotated
//    certificates are picked up without a restart; a new pair that does not
//    parse or match is ignored (logged) and the previous one kept.
//    Metrics: webhook_requests_total{path,code}, webhook_latency_seconds{path}.
//
// This header keeps httplib and OpenSSL out of its includers; http_server.cc
// is the one translation unit that includes <httplib.h>.
// Thread-safety: every method may be called from any thread; checks and
// handlers are called concurrently from the servers' worker threads.
#ifndef QUORUM_SRC_RUNTIME_HTTP_SERVER_H_
#define QUORUM_SRC_RUNTIME_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace quorum {
class Clock;
}  // namespace quorum

namespace quorum::runtime {

class Registry;
struct AdmissionRequest;
struct AdmissionResponse;

class ProbeServer {
 public:
  struct Options {
    std::string bind_address = "127.0.0.1";
    int port = 0;                 // 0: an ephemeral port, see port()
    Registry* metrics = nullptr;  // not owned; null: /metrics answers 404
  };

  explicit ProbeServer(Options options);
  ~ProbeServer();  // stops the server
  ProbeServer(const ProbeServer&) = delete;
  ProbeServer& operator=(const ProbeServer&) = delete;

  // A check returns OK when healthy; it must be quick (it runs on every
  // probe). May be added before or after Start().
  void AddHealthCheck(std::string name, std::function<absl::Status()> check);
  void AddReadyCheck(std::string name, std::function<absl::Status()> check);

  // Binds and serves on a background thread. Errors: Unavailable when the
  // address cannot be bound, FailedPrecondition when already started.
  absl::Status Start();
  // The bound port once started, else 0.
  int port() const;
  // Stops serving and joins the thread; in-flight requests finish and idle
  // keep-alive connections are closed (within about a second). Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

class WebhookServer {
 public:
  struct Options {
    std::string bind_address = "0.0.0.0";
    int port = 0;           // 0: an ephemeral port, see port()
    std::string cert_file;  // PEM serving certificate (chain allowed: leaf first)
    std::string key_file;   // PEM private key, unencrypted
    absl::Duration reload_interval = absl::Seconds(10);
    Registry* metrics = nullptr;  // not owned; null: no metrics
    Clock* clock = nullptr;       // not owned; null: RealClock(). Paces reload checks.
  };

  explicit WebhookServer(Options options);
  ~WebhookServer();  // stops the server
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Serves `handler` at `path` (e.g. "/validate-etcdcluster").
  // Errors: InvalidArgument for a path not starting with '/' or a null
  // handler, AlreadyExists for a path registered twice, FailedPrecondition
  // after Start().
  absl::Status Register(std::string path,
                        std::function<AdmissionResponse(const AdmissionRequest&)> handler);

  // Loads the certificate, binds and serves on a background thread.
  // Errors: NotFound/InvalidArgument for a missing or unusable certificate or
  // key (the message names the file, never its content), Unavailable when
  // the address cannot be bound, FailedPrecondition when already started
  // (a stopped WebhookServer is not restarted: make a new one).
  absl::Status Start();
  // The bound port once started, else 0.
  int port() const;
  // Stops serving and joins the thread; in-flight requests finish and idle
  // keep-alive connections are closed (within about a second). Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_HTTP_SERVER_H_
