// Typed errors from etcd's v3 JSON gateway. A failed call comes back with a
// non-2xx HTTP code and a body {"code": <gRPC code>, "message": "..."} (3.5
// also sends "error"). gRPC codes map one to one onto absl codes; a few etcd
// errors are refined so that the code tells a caller what to do, and every
// error from etcd carries a Reason() that names it exactly:
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
//   client certificate has a CommonName (HTTP 400
//   from the gateway once auth is on)             kFailedPrecondition  ClientCertHasCN
//   anything else                                 etcd's gRPC code     ""
//
// A body that is not etcd's JSON (a proxy's HTML, an empty reply) still gives
// a status from the HTTP code: 400 InvalidArgument, 401 Unauthenticated,
// 403 PermissionDenied, 404 NotFound, 429 ResourceExhausted,
// 502/503 Unavailable, 504 DeadlineExceeded, other 5xx Internal.
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
inline constexpr std::string_view kReasonClientCertHasCN = "ClientCertHasCN";
inline constexpr std::string_view kReasonCompacted = "Compacted";
inline constexpr std::string_view kReasonNoSpace = "NoSpace";
inline constexpr std::string_view kReasonUserNotFound = "UserNotFound";
inline constexpr std::string_view kReasonRoleNotFound = "RoleNotFound";

// The status for one gateway response; OkStatus for 2xx. `what` names the
// call for the message, e.g. "member promote on https://10.0.0.1:2379".
absl::Status StatusFromResponse(long http_code, std::string_view body, std::string_view what);

// The Reason() of a status built by StatusFromResponse; "" otherwise.
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
