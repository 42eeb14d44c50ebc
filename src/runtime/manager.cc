#include "src/runtime/manager.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/clock.h"
#include "src/base/strings.h"

namespace quorum::runtime {

absl::StatusOr<std::pair<std::string, int>> ParseBindAddress(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("bind address \"", Absl(address), "\": want host:port or :port"));
  }
  std::string host(address.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  int port = 0;
  if (!absl::SimpleAtoi(Absl(address.substr(colon + 1)), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bind address \"", Absl(address), "\": bad port"));
  }
  return std::make_pair(host, port);
}

Manager::Manager(kube::Client& client, ManagerOptions options)
    : client_(client), options_(std::move(options)) {
  cache_ = std::make_unique<Cache>(client_, CacheOptions{.namespaces = options_.namespaces,
                                                         .metrics = &metrics_,
                                                         .by_resource = options_.cache_scopes});
  EventRecorderOptions events = options_.events;
  if (events.metrics == nullptr) events.metrics = &metrics_;
  recorder_ = std::make_unique<EventRecorder>(client_, std::move(events));
  if (options_.webhook) {
    WebhookServer::Options w = *options_.webhook;
    if (w.metrics == nullptr) w.metrics = &metrics_;
    webhook_ = std::make_unique<WebhookServer>(std::move(w));
  }
  CounterFamily& requests = metrics_.Counter(
      "rest_client_requests_total", "API server requests by verb and HTTP code", {"verb", "code"});
  HistogramFamily& latency = metrics_.Histogram("rest_client_request_duration_seconds",
                                                "API server request latency by verb", {"verb"});
  CounterFamily& writes =
      metrics_.Counter("rest_client_writes_total",
                       "API server writes (create, update, patch, delete) by verb and resource",
                       {"verb", "resource"});
  client_.set_request_observer([&requests, &latency, &writes](const kube::RequestRecord& r) {
    const std::string verb(r.verb);
    requests.Inc({verb, r.code == 0 ? std::string("<error>") : std::to_string(r.code)});
    if (verb != "watch") latency.Observe({verb}, absl::ToDoubleSeconds(r.latency));
    if (verb != "get" && verb != "list" && verb != "watch")
      writes.Inc({verb, std::string(r.resource)});
  });
}

Manager::~Manager() {
  StopAll();
  client_.set_request_observer(nullptr);
}

Controller& Manager::AddController(std::string name, Reconciler& reconciler,
                                   ControllerOptions options) {
  if (options.metrics == nullptr) options.metrics = &metrics_;
  controllers_.push_back(
      std::make_unique<Controller>(std::move(name), reconciler, std::move(options)));
  return *controllers_.back();
}

int Manager::metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }

int Manager::health_port() const {
  if (health_server_) return health_server_->port();
  return options_.health_probe_bind_address == options_.metrics_bind_address ? metrics_port() : 0;
}

absl::Status Manager::StartServers() {
  auto disabled = [](const std::string& a) { return a.empty() || a == "0"; };
  auto make = [this](const std::string& address) -> absl::StatusOr<std::unique_ptr<ProbeServer>> {
    absl::StatusOr<std::pair<std::string, int>> bind = ParseBindAddress(address);
    if (!bind.ok()) return bind.status();
    auto server = std::make_unique<ProbeServer>(ProbeServer::Options{
        .bind_address = bind->first, .port = bind->second, .metrics = &metrics_});
    server->AddHealthCheck("ping", [] { return absl::OkStatus(); });
    server->AddReadyCheck("informers-synced", [this] {
      return cache_->HasSynced() ? absl::OkStatus()
                                 : absl::UnavailableError("caches have not synced yet");
    });
    absl::Status s = server->Start();
    if (!s.ok()) return s;
    return server;
  };
  if (!disabled(options_.metrics_bind_address)) {
    auto server = make(options_.metrics_bind_address);
    if (!server.ok()) return server.status();
    metrics_server_ = *std::move(server);
  }
  if (!disabled(options_.health_probe_bind_address) &&
      options_.health_probe_bind_address != options_.metrics_bind_address) {
    auto server = make(options_.health_probe_bind_address);
    if (!server.ok()) return server.status();
    health_server_ = *std::move(server);
  }
  if (webhook_) {
    absl::Status s = webhook_->Start();
    if (!s.ok()) return s;
    spdlog::info("webhook server listening on port {}", webhook_->port());
  }
  return absl::OkStatus();
}

void Manager::StartControllers() {
  if (controllers_started_.exchange(true)) return;
  leading_ = true;
  spdlog::info("starting {} controller(s)", controllers_.size());
  for (auto& c : controllers_) c->Start();
}

void Manager::StopControllers() {
  leading_ = false;
  if (!controllers_started_.exchange(false)) return;
  spdlog::info("stopping controllers: finishing in-flight reconciles");
  for (auto& c : controllers_) c->Stop();
}

void Manager::AbortControllers() {
  leading_ = false;
  if (!controllers_started_.exchange(false)) return;
  Cancellation aborted;
  const absl::Duration grace = options_.lost_leadership_grace;
  std::thread guard([&aborted, grace] {
    if (aborted.WaitFor(grace)) return;
    spdlog::critical("leadership lost and reconciles still running after {}: exiting",
                     absl::FormatDuration(grace));
    spdlog::default_logger()->flush();
    std::_Exit(1);
  });
  for (auto& c : controllers_) c->Abort();
  aborted.Cancel();
  guard.join();
}

void Manager::StopAll() {
  StopControllers();
  if (cache_) cache_->Stop();
  if (recorder_) recorder_->Flush();
  if (webhook_) webhook_->Stop();
  if (health_server_) health_server_->Stop();
  if (metrics_server_) metrics_server_->Stop();
}

absl::Status Manager::Run(Cancellation& cancel) {
  if (absl::Status s = StartServers(); !s.ok()) {
    StopAll();
    return s;
  }
  cache_->Start();
  if (!cache_->WaitForSync(options_.cache_sync_timeout, &cancel)) {
    StopAll();
    if (cancel.cancelled()) return absl::OkStatus();
    return absl::DeadlineExceededError(absl::StrCat(
        "caches did not sync within ", absl::FormatDuration(options_.cache_sync_timeout),
        " (check the operator's RBAC and the API server)"));
  }
  spdlog::info("caches synced");
  absl::Status result = absl::OkStatus();
  if (!options_.leader_election) {
    StartControllers();
    cancel.WaitFor(absl::InfiniteDuration());
  } else {
    LeaderElector elector(client_, *options_.leader_election, RealClock(), &metrics_);
    result = elector.Run(
        cancel,
        [this] {
          spdlog::info("became leader");
          StartControllers();
        },
        [this, &cancel] {
          // Shutting down: in-flight work may finish (the lease is released
          // only afterwards). Lost: nobody waits for us, so stop at once.
          if (cancel.cancelled()) {
            StopControllers();
          } else {
            AbortControllers();
          }
        });
    if (!result.ok()) spdlog::error("leader election: {}", std::string(result.message()));
  }
  StopAll();
  return result;
}

}  // namespace quorum::runtime
