// Manager: runs everything a controller process needs, in order, and stops
// it in reverse — controller-runtime's Manager.
//
//   Run(cancel):
//     1. probe server(s): /metrics, /healthz, /readyz (ready once caches sync)
//     2. webhook server, if configured and handlers were registered
//     3. cache: every informer lists and watches (on every replica)
//     4. leader election (if configured); when leading, controllers start
//   cancel:
//     controllers stop taking work and finish in-flight reconciles, the
//     lease is released, caches and servers stop, Run returns OK.
//   leadership lost: controllers stop; Run returns Aborted (exit the
//     process, as controller-runtime does, so a restart campaigns afresh).
//
// Metrics of the shared client: rest_client_requests_total{verb,code},
// rest_client_writes_total{verb,resource} and
// rest_client_request_duration_seconds{verb}; leader status from the elector.
// Thread-safety: configure (AddController, Webhook()->Register) before Run;
// accessors are safe afterwards.
#ifndef QUORUM_SRC_RUNTIME_MANAGER_H_
#define QUORUM_SRC_RUNTIME_MANAGER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/base/cancellation.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/controller.h"
#include "src/runtime/event_recorder.h"
#include "src/runtime/http_server.h"
#include "src/runtime/leader_election.h"
#include "src/runtime/metrics.h"

namespace quorum::runtime {

struct ManagerOptions {
  std::vector<std::string> namespaces;                  // watched namespaces; empty: all
  std::optional<LeaderElectionConfig> leader_election;  // nullopt: always lead
  // "host:port"; port 0 = ephemeral; "" or "0" disables. Equal addresses
  // share one server.
  std::string metrics_bind_address = "0.0.0.0:8080";
  std::string health_probe_bind_address = "0.0.0.0:8081";
  std::optional<WebhookServer::Options> webhook;  // nullopt: no webhook server
  absl::Duration cache_sync_timeout = absl::Minutes(2);
  // Per-type label selectors/transforms of the shared cache (see cache.h).
  std::map<std::string, ResourceScope> cache_scopes;
  EventRecorderOptions events;
  // When the leader lease is lost, in-flight reconciles are cancelled (see
  // Controller::Abort); if they have not all returned within this grace the
  // process exits at once (status 1) rather than risk overlapping the next
  // leader. Keep it below lease_duration - renew_deadline.
  absl::Duration lost_leadership_grace = absl::Seconds(3);
};

// Splits "host:port" (":8080" binds all interfaces). Errors: InvalidArgument.
absl::StatusOr<std::pair<std::string, int>> ParseBindAddress(std::string_view address);

class Manager {
 public:
  // `client` must outlive the manager.
  Manager(kube::Client& client, ManagerOptions options);
  ~Manager();

  Cache& cache() { return *cache_; }
  Registry& metrics() { return metrics_; }
  EventRecorder& recorder() { return *recorder_; }
  kube::Client& client() { return client_; }
  // nullptr when no webhook server was configured.
  WebhookServer* webhook_server() { return webhook_.get(); }

  // Creates a controller (metrics wired in); add its watches before Run.
  Controller& AddController(std::string name, Reconciler& reconciler,
                            ControllerOptions options = {});

  // Blocks until `cancel` fires (OK) or something fatal happens: a server
  // cannot bind (Unavailable), caches do not sync in time
  // (DeadlineExceeded), leadership is lost (Aborted).
  absl::Status Run(Cancellation& cancel);

  bool IsLeader() const { return leading_.load(); }
  // Ports actually bound (useful with port 0), 0 when not serving.
  int metrics_port() const;
  int health_port() const;
  int webhook_port() const { return webhook_ ? webhook_->port() : 0; }

 private:
  absl::Status StartServers();
  void StartControllers();
  void StopControllers();
  // Leadership lost: cancels in-flight reconciles, then stops (or exits).
  void AbortControllers();
  void StopAll();

  kube::Client& client_;
  const ManagerOptions options_;
  Registry metrics_;
  std::unique_ptr<Cache> cache_;
  std::unique_ptr<EventRecorder> recorder_;
  std::unique_ptr<WebhookServer> webhook_;
  std::unique_ptr<ProbeServer> metrics_server_;
  std::unique_ptr<ProbeServer> health_server_;  // null when sharing metrics_server_
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::atomic<bool> leading_{false};
  std::atomic<bool> controllers_started_{false};
  friend class ManagerTestPeer;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_MANAGER_H_
