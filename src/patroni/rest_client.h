// RestClient: Patroni's REST API (port 8008) for the operator — one member's
// state (GET /patroni), the cluster as the member sees it (GET /cluster), and
// the two leader moves (POST /switchover, POST /failover), the dynamic
// configuration (GET and PATCH /config), and POST /reload.
// The unsafe calls take the REST API's basic-auth credentials. Each call names the
// member by an Endpoint: the base URL connected to (http(s)://host:port) and,
// for https, the name its certificate must carry and the CA it must chain to
// (members are reached by pod IP, which no certificate names, and each
// cluster has its own CA). TLS is used when the URL is https; the peer is
// always verified (chain and name).
//
// Errors: Unavailable (connection/TLS failure, or Patroni answered 503: the
// member cannot serve now, back off), DeadlineExceeded (timeout),
// FailedPrecondition (412: Patroni refuses the switchover/failover in this
// state, e.g. the candidate is not healthy or is the leader already),
// InvalidArgument (400, or a malformed URL), Unauthenticated (401),
// PermissionDenied (403), Internal (another code, or a body we cannot parse).
// Messages never contain credentials.
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_PATRONI_REST_CLIENT_H_
#define QUORUM_SRC_PATRONI_REST_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/kube/transport.h"

namespace quorum::patroni {

// GET /patroni.
struct MemberStatus {
  std::string name;   // patroni.name
  std::string scope;  // patroni.scope
  std::string state;  // running, starting, stopped, ...
  std::string role;   // primary, replica, standby_leader, ... ("" when absent)
  std::string database_system_identifier;
  bool pending_restart = false;
  int64_t timeline = 0;
  // WAL positions (bytes): the primary's write location, a replica's
  // received and replayed ones; 0 when absent.
  int64_t xlog_location = 0;
  int64_t xlog_received_location = 0;
  int64_t xlog_replayed_location = 0;
  // A primary's WAL senders in state "streaming" (its "replication" list):
  // their application_name, which Patroni sets to the member's name.
  std::vector<std::string> streaming_to;
};

// One entry of GET /cluster's members.
struct ClusterMember {
  std::string name;
  std::string role;   // leader, replica, sync_standby, standby_leader, ...
  std::string state;  // running, streaming, stopped, ...
  std::string api_url;
  std::string host;
  int port = 0;
  int64_t timeline = 0;
  std::optional<int64_t> lag;  // bytes behind the leader; nullopt: unknown or leader
};

struct ClusterStatus {
  std::string scope;
  std::vector<ClusterMember> members;
  // The member with role leader or standby_leader; "" when none.
  std::string Leader() const;
};

// Pure parsers of the response bodies (exposed for tests). InvalidArgument
// for a body that is not the expected JSON object.
absl::StatusOr<MemberStatus> ParseMemberStatus(std::string_view body);
absl::StatusOr<ClusterStatus> ParseClusterStatus(std::string_view body);

// Patroni's restapi.authentication: sent with every unsafe call
// (switchover, failover, reload); empty username: none.
struct BasicAuth {
  std::string username, password;
};

// A member's REST API. `url` is what is connected to. With https,
// `tls_server_name` ("" = the URL's host) is the name checked in the
// certificate and sent as SNI, while the connection still goes to the URL's
// host (libcurl's CONNECT_TO), and `ca_pem` ("" = RestClientConfig::ca_pem)
// the CA it must chain to. Converts from a URL alone (tests, plain http).
struct Endpoint {
  Endpoint() = default;
  // Implicit on purpose: a URL alone is an Endpoint.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Endpoint(std::string base_url) : url(std::move(base_url)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  Endpoint(const char* base_url) : url(base_url) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  Endpoint(std::string_view base_url) : url(base_url) {}
  std::string url;
  std::string tls_server_name;
  std::string ca_pem;
  // The client certificate this member's REST API wants (restapi
  // verify_client); empty: RestClientConfig's, if any.
  std::string client_cert_pem, client_key_pem;
  bool operator==(const Endpoint&) const = default;
};

struct RestClientConfig {
  // Trust for https when the Endpoint names no CA; empty: the system store.
  std::string ca_pem;
  std::string cert_pem, key_pem;  // client certificate (restapi verify_client)
  absl::Duration timeout = absl::Seconds(5);
  // Connections are kept per endpoint for reuse; members come and go (pod
  // IPs change), so at most this many are kept, least recently used evicted.
  size_t max_cached_connections = 256;
};

class RestClient {
 public:
  explicit RestClient(RestClientConfig config);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  absl::StatusOr<MemberStatus> GetPatroni(const Endpoint& member);
  absl::StatusOr<ClusterStatus> GetCluster(const Endpoint& member);
  // Moves leadership from `leader` to `candidate` ("" lets Patroni choose a
  // healthy replica). Send to any member; returns when Patroni answered (it
  // answers after the switchover, or with 412/503 when it refused or failed).
  absl::Status Switchover(const Endpoint& member, std::string_view leader,
                          std::string_view candidate, const BasicAuth& auth = {});
  // Manual failover to `candidate` (works without a healthy leader).
  absl::Status Failover(const Endpoint& member, std::string_view candidate,
                        const BasicAuth& auth = {});
  // GET /config: the dynamic configuration kept in the DCS, as stored.
  absl::StatusOr<nlohmann::json> GetConfig(const Endpoint& member);
  // PATCH /config with a JSON merge patch (dynamic_config.h); Patroni stores
  // it in the DCS and every member applies it within a loop_wait.
  absl::Status PatchConfig(const Endpoint& member, const nlohmann::json& patch,
                           const BasicAuth& auth = {});
  // POST /reload: the member re-reads its configuration and SIGHUPs
  // PostgreSQL, which then serves a renewed certificate from its files.
  absl::Status Reload(const Endpoint& member, const BasicAuth& auth = {});

  // Member connections held now (never more than max_cached_connections).
  size_t cached_connections() const;

 private:
  absl::StatusOr<kube::HttpResponse> Send(const Endpoint& member, std::string method,
                                          std::string path, std::string body,
                                          std::optional<absl::Duration> timeout,
                                          const BasicAuth& auth = {});
  absl::StatusOr<std::shared_ptr<kube::Transport>> TransportFor(const Endpoint& member);

  const RestClientConfig config_;
  struct Cached {
    std::shared_ptr<kube::Transport> transport;
    uint64_t last_used = 0;
  };
  mutable absl::Mutex mu_;
  uint64_t uses_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, Cached, std::less<>> transports_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::patroni

#endif  // QUORUM_SRC_PATRONI_REST_CLIENT_H_
