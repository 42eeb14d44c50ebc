// Typed errors from etcd's v3 gRPC API. A failed call ends with a gRPC status:
// a code and etcd's message ("etcdserver: ..."), the same pair etcd's own
// client (rpctypes) reads. gRPC codes map one to one onto absl codes; a few
// etcd errors are refined so that the code tells a caller what to do, and
// every error from etcd carries a Reason() that names it exactly:
//
//   etcd says                                     absl code            Reason()
//   invalid auth token                            kUnauthenticated     InvalidAuthToken
//   revision of auth store is old                 kUnauthenticated     AuthOldRevision
//   user name is empty (auth on, no token sent)   kUnauthenticated     UserEmpty
//   authentication failed, invalid user ID ...    kUnauthenticated     AuthFailed
//   can only promote a learner ... in sync        kFailedPrecondition  LearnerNotReady
//   rpc not supported for learner                 kUnavailable         NotSupportedForLearner
//   no leader / request timed out / ...           kUnavailable         (as etcd)
//   member not found                              kNotFound            MemberNotFound
//   not leader (move leader sent elsewhere)       kFailedPrecondition  NotLeader
//   permission denied                             kPermissionDenied    PermissionDenied
//   mvcc: required revision has been compacted    kOutOfRange          Compacted
//   mvcc: database space exceeded (NOSPACE alarm) kResourceExhausted   NoSpace
//   anything else                                 etcd's gRPC code     ""
//
// Failures of the transport (connection refused, TLS handshake, deadline)
// keep gRPC's code: Unavailable or DeadlineExceeded.
//
// All functions are pure and thread-safe.
#ifndef QUORUM_SRC_ETCD_ERRORS_H_
#define QUORUM_SRC_ETCD_ERRORS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace quorum::etcd {

inline constexpr std::string_view kReasonInvalidAuthToken = "InvalidAuthToken";
inline constexpr std::string_view kReasonAuthOldRevision = "AuthOldRevision";
inline constexpr std::string_view kReasonUserEmpty = "UserEmpty";
inline constexpr std::string_view kReasonAuthFailed = "AuthFailed";
inline constexpr std::string_view kReasonAuthNotEnabled = "AuthNotEnabled";
inline constexpr std::string_view kReasonLearnerNotReady = "LearnerNotReady";
inline constexpr std::string_view kReasonNotSupportedForLearner = "NotSupportedForLearner";
inline constexpr std::string_view kReasonMemberNotFound = "MemberNotFound";
inline constexpr std::string_view kReasonNotLeader = "NotLeader";
inline constexpr std::string_view kReasonPermissionDenied = "PermissionDenied";
inline constexpr std::string_view kReasonCompacted = "Compacted";
inline constexpr std::string_view kReasonNoSpace = "NoSpace";
inline constexpr std::string_view kReasonUserNotFound = "UserNotFound";
inline constexpr std::string_view kReasonRoleNotFound = "RoleNotFound";

// The status for a failed gRPC call to etcd: `grpc_code` is the call's
// grpc::StatusCode (0, OK, gives OkStatus), `message` its error message.
// Codes and reasons as in the table above; a failure of the transport itself
// (connection refused, TLS handshake, deadline) keeps gRPC's code, which is
// Unavailable or DeadlineExceeded.
absl::Status StatusFromGrpc(int grpc_code, std::string_view message, std::string_view what);

// The Reason() of a status built by StatusFromGrpc; "" otherwise.
std::string Reason(const absl::Status& status);

// The learner is still catching up with the leader: retry the promotion later.
inline bool IsLearnerNotReady(const absl::Status& s) { return Reason(s) == kReasonLearnerNotReady; }

// A compaction at or below the revision already compacted: nothing to do.
inline bool IsCompacted(const absl::Status& s) { return Reason(s) == kReasonCompacted; }

// etcd refuses writes: its NOSPACE alarm is raised (the backend hit its quota).
inline bool IsNoSpace(const absl::Status& s) { return Reason(s) == kReasonNoSpace; }

// Authenticating again may fix the call: the token expired, the auth store
// changed since it was issued, or auth was enabled after the client chose to
// send no token.
bool IsStaleToken(const absl::Status& s);

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_ERRORS_H_
