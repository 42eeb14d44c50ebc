// Client: etcd's v3 API over the JSON gateway (POST <endpoint>/v3/...), for
// what an operator needs: cluster membership, per-member status and
// maintenance, auth setup, and a little KV for health checks and tests.
//
// Endpoints are client URLs (http:// or https://). Calls that are not tied to
// one member try the configured endpoints in turn, starting with the last one
// that answered, and move to the next one when an endpoint is unavailable
// (connection or TLS failure, etcd "no leader", a learner that cannot serve
// the call). Reads also move on after a timeout; writes (membership changes,
// auth changes, puts) do not, because the first member may still apply them.
// Calls tied to one member (Status, Defragment) never fail over.
//
// With a username, the client authenticates (/v3/auth/authenticate) before
// the first call and again once when etcd says the token is invalid or stale
// (tokens expire; enabling auth invalidates the "no token" choice).
//
// The token travels as "Authorization: Bearer <token>", the only form
// kube::Transport sends. etcd releases from mid-2026 on (3.5, 3.6 and 3.7
// patch lines; 3.6.16 here) accept it; older ones want the bare token and
// answer "invalid auth token" (Unauthenticated) until kube::HttpRequest can
// carry a per-request header. With auth on, etcd's JSON gateway also refuses
// client certificates that have a CommonName (FailedPrecondition).
//
// Errors (see errors.h for the mapping): Unavailable (no endpoint answered, or
// etcd cannot serve now: back off), DeadlineExceeded, NotFound (no such
// member), FailedPrecondition (etcd refuses in this state, e.g. "learner not
// ready", too many learners, peer URL exists, auth not enabled),
// Unauthenticated (bad credentials or no token when auth is on),
// PermissionDenied, InvalidArgument (bad input; do not retry), Internal (an
// answer we cannot parse).
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_ETCD_CLIENT_H_
#define QUORUM_SRC_ETCD_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/etcd/types.h"
#include "src/kube/transport.h"

namespace quorum::etcd {

struct ClientConfig {
  std::vector<std::string> endpoints;         // client URLs, tried in order
  std::string ca_pem;                         // trust for https endpoints; empty: system store
  std::string cert_pem, key_pem;              // client certificate (etcd --client-cert-auth)
  std::string username, password;             // etcd auth; empty username: send no token
  absl::Duration timeout = absl::Seconds(5);  // per request
};

class Client {
 public:
  // Errors: InvalidArgument for no endpoints or a malformed endpoint URL.
  // No I/O happens here.
  static absl::StatusOr<std::unique_ptr<Client>> Create(ClientConfig config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // --- Membership ---------------------------------------------------------
  // linearizable=true asks the leader (fails without quorum); false lets any
  // member answer from its local view. `timeout` (per endpoint tried)
  // replaces the configured one, e.g. a short deadline for a health look.
  absl::StatusOr<MemberListResponse> MemberList(
      bool linearizable = true, std::optional<absl::Duration> timeout = std::nullopt);
  // FailedPrecondition: too many learners, peer URL exists, not enough started
  // members (a voting add without quorum). Unavailable ("unhealthy cluster")
  // for about 5 s after a member joined or left (etcd's strict reconfig check
  // wants the leader connected to every voter for 5 s): requeue. The same
  // holds for MemberRemove.
  absl::StatusOr<MemberAddResponse> MemberAdd(const std::vector<std::string>& peer_urls,
                                              bool is_learner);
  // NotFound when there is no such member (e.g. already removed).
  absl::Status MemberRemove(uint64_t id);
  // FailedPrecondition with IsLearnerNotReady() while the learner catches up
  // (retry later); FailedPrecondition for a voting member; NotFound.
  absl::Status MemberPromote(uint64_t id);
  absl::Status MemberUpdate(uint64_t id, const std::vector<std::string>& peer_urls);

  // --- Maintenance ----------------------------------------------------------
  // Asks exactly `endpoint` (need not be a configured endpoint); `timeout` as
  // for MemberList.
  absl::StatusOr<StatusResponse> Status(std::string_view endpoint,
                                        std::optional<absl::Duration> timeout = std::nullopt);
  // Makes `target_id` the leader: finds the leader through Status and sends
  // the request to the leader's client URL. OK at once if the target leads.
  // FailedPrecondition when the target is not a started voting member or the
  // leadership moved meanwhile (retry); Unavailable when there is no leader.
  absl::Status MoveLeader(uint64_t target_id);
  absl::StatusOr<std::vector<Alarm>> Alarms();
  // Deactivates `alarm` (as Alarms() listed it). etcd raises NOSPACE again on
  // the next write if the backend is still over its quota.
  absl::Status AlarmDisarm(const Alarm& alarm);
  // Drops the key history below `revision` and waits until the space is
  // reusable (physical). OutOfRange with IsCompacted() when `revision` is
  // already compacted.
  absl::Status Compact(int64_t revision);
  // Defragments exactly `endpoint` (one member at a time: it blocks that
  // member). Allowed max(timeout, 1 minute).
  absl::Status Defragment(std::string_view endpoint);

  // --- KV -----------------------------------------------------------------
  // Returns the revision of the put.
  absl::StatusOr<int64_t> Put(std::string_view key, std::string_view value);
  // Linearizable read of one key.
  absl::StatusOr<GetResponse> Get(std::string_view key);
  // Deletes every key starting with `prefix`; returns how many there were.
  // InvalidArgument for an empty prefix (that would be every key).
  absl::StatusOr<int64_t> DeletePrefix(std::string_view prefix);
  // Deletes `key` only while its value is `value` (one transaction); true
  // when it did, false when the key is absent or holds another value.
  absl::StatusOr<bool> DeleteIfValue(std::string_view key, std::string_view value);

  // --- Auth ---------------------------------------------------------------
  // FailedPrecondition when the user/role already exists or is missing.
  absl::Status UserAdd(std::string_view name, std::string_view password);
  // FailedPrecondition when the user does not exist.
  absl::Status UserChangePassword(std::string_view name, std::string_view password);
  absl::Status RoleAdd(std::string_view name);
  absl::Status UserGrantRole(std::string_view user, std::string_view role);
  // Grants `permission` on [key, range_end); range_end "" means just `key`,
  // "\0" (a one-byte string holding 0) means every key >= `key`.
  absl::Status RoleGrantPermission(std::string_view role, std::string_view key,
                                   std::string_view range_end, Permission permission);
  // OK also when the user (role) is already gone.
  absl::Status UserDelete(std::string_view name);
  absl::Status RoleDelete(std::string_view name);
  absl::StatusOr<std::vector<std::string>> UserList();
  absl::StatusOr<std::vector<std::string>> RoleList();
  // FailedPrecondition when the root user or its root role is missing.
  absl::Status AuthEnable();
  absl::Status AuthDisable();
  absl::StatusOr<AuthStatusResponse> AuthStatus();

  // --- Streams --------------------------------------------------------------
  // One long POST (a watch, see watch.h) to exactly `endpoint` with the
  // current token (authenticating first when auth is on): `on_data` gets the
  // chunks of a 2xx body as they arrive. Ends when etcd closes the stream
  // (the response: its code, and the body when not 2xx), when `on_data`
  // returns false, or with Cancelled when `cancel` fires; Unavailable when
  // the endpoint cannot be reached; authentication errors as above.
  absl::StatusOr<kube::HttpResponse> Stream(std::string_view endpoint, std::string_view path,
                                            const std::string& body,
                                            const std::function<bool(std::string_view)>& on_data,
                                            Cancellation* cancel);
  // Drops the current token so that the next call authenticates again: etcd
  // cancels a watch whose token went stale instead of failing a request.
  void ForgetToken();

  const ClientConfig& config() const { return config_; }

 private:
  explicit Client(ClientConfig config);

  // One POST to exactly `endpoint`, authenticating first when needed and once
  // more when etcd calls the token stale. Returns the response body.
  absl::StatusOr<std::string> PostTo(std::string_view endpoint, std::string_view path,
                                     const std::string& body, std::string_view what,
                                     std::optional<absl::Duration> timeout = std::nullopt);
  // PostTo over the configured endpoints with failover.
  absl::StatusOr<std::string> Post(std::string_view path, const std::string& body,
                                   std::string_view what, bool idempotent,
                                   std::optional<absl::Duration> timeout = std::nullopt);
  // One HTTP exchange with the current token; reports the token generation used.
  absl::StatusOr<std::string> PostOnce(std::string_view endpoint, std::string_view path,
                                       const std::string& body, std::string_view what,
                                       std::optional<absl::Duration> timeout, uint64_t* generation);
  // Obtains a token (or learns that auth is off) unless another thread already
  // replaced the one of `stale_generation`.
  absl::Status Authenticate(uint64_t stale_generation);
  void InvalidateToken(uint64_t generation);
  absl::StatusOr<std::shared_ptr<kube::Transport>> TransportFor(std::string_view endpoint,
                                                                uint64_t* generation);
  absl::StatusOr<std::unique_ptr<kube::Transport>> NewTransport(std::string_view endpoint,
                                                                const std::string& token) const;

  const ClientConfig config_;
  absl::Mutex auth_mu_ ABSL_ACQUIRED_BEFORE(mu_);  // one authentication at a time
  absl::Mutex mu_;
  // The token travels in each transport's config, so a new token means new
  // transports; calls in flight keep the old one alive (hence shared_ptr).
  std::string token_ ABSL_GUARDED_BY(mu_);
  bool token_known_ ABSL_GUARDED_BY(mu_) = false;  // authenticated, or auth is off
  uint64_t token_generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::shared_ptr<kube::Transport>, std::less<>> transports_
      ABSL_GUARDED_BY(mu_);
  size_t preferred_ ABSL_GUARDED_BY(mu_) = 0;  // index of the last endpoint that answered
};

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_CLIENT_H_
