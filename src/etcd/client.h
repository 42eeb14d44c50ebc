// Client: etcd's v3 gRPC API, for what an operator needs: cluster
// membership, per-member status and maintenance, auth setup, and a little KV
// for health checks and tests. (Watches: watch.h; snapshots: snapshot.h.)
//
// Endpoints are client URLs (http:// or https://). Calls that are not tied to
// one member try the configured endpoints in turn, starting with the last one
// that answered, and move to the next one when an endpoint is unavailable
// (connection or TLS failure, etcd "no leader", a learner that cannot serve
// the call). Reads also move on after a timeout; writes (membership changes,
// auth changes, puts) do not, because the first member may still apply them.
// Calls tied to one member (Status, Defragment) never fail over. Each call
// has a deadline: the configured timeout per endpoint tried, unless the call
// says otherwise.
//
// Authentication, as etcd's own client does it:
//   * With a username, the client authenticates (Auth.Authenticate) before
//     the first call and again once when etcd says the token is invalid or
//     stale (tokens expire; enabling auth invalidates the "no token" choice).
//     The token travels in the "token" metadata of each call.
//   * Without a username, no token is sent. An etcd running with
//     --client-cert-auth then authenticates the call by the client
//     certificate: the user is the certificate's CommonName (CN=root acts as
//     root; a certificate without CommonName gets UserEmpty once auth is on).
//
// Errors (see errors.h for the mapping): Unavailable (no endpoint answered, or
// etcd cannot serve now: back off), DeadlineExceeded, NotFound (no such
// member), FailedPrecondition (etcd refuses in this state, e.g. "learner not
// ready", too many learners, peer URL exists, auth not enabled),
// Unauthenticated (bad credentials or no token when auth is on),
// PermissionDenied, InvalidArgument (bad input; do not retry), Internal (an
// answer we cannot use).
//
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_ETCD_CLIENT_H_
#define QUORUM_SRC_ETCD_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/etcd/types.h"

namespace quorum::etcd {

namespace internal {
class Connection;  // connection.h: the gRPC channels and credentials
}  // namespace internal

struct ClientConfig {
  std::vector<std::string> endpoints;  // client URLs, tried in order
  std::string ca_pem;                  // trust for https endpoints; empty: system store
  std::string cert_pem, key_pem;       // client certificate (etcd --client-cert-auth)
  // etcd auth; empty username: no token (etcd may take the certificate's CN),
  // and the password is ignored.
  std::string username, password;
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
  // FailedPrecondition when the user/role already exists or is missing. An
  // empty password makes a user without one (etcd's --no-password: it can
  // only authenticate by a client certificate naming it).
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

  // Drops the current token so that the next call authenticates again: etcd
  // cancels a watch whose token went stale instead of failing a request.
  void ForgetToken();

  const ClientConfig& config() const { return config_; }
  // For src/etcd's streams (watch.cc, snapshot.cc); opaque elsewhere.
  internal::Connection& connection() { return *connection_; }

 private:
  explicit Client(ClientConfig config);

  const ClientConfig config_;
  std::unique_ptr<internal::Connection> connection_;
};

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_CLIENT_H_
