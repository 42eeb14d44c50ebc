// Typed errors from the API server. Every non-2xx response becomes an
// absl::Status whose code tells a caller what to do, with the API's `Status`
// (reason, HTTP code, field causes, Retry-After) attached as a payload:
//
//   HTTP / reason                 absl code            caller should
//   404 NotFound                  kNotFound            treat as absent
//   409 AlreadyExists             kAlreadyExists       treat as present
//   409 Conflict                  kAborted             re-read and retry now
//   410 Gone / Expired            kOutOfRange          relist (resourceVersion too old)
//   422 Invalid, 400 BadRequest   kInvalidArgument     tell the user, do not retry
//   401                           kUnauthenticated     fix credentials
//   403                           kPermissionDenied    fix RBAC
//   429 TooManyRequests           kResourceExhausted   wait RetryAfter(), retry
//   500                           kInternal            back off
//   502/503/504, transport error  kUnavailable         back off
//   client timeout                kDeadlineExceeded    back off
//
// All functions are pure and thread-safe.
#ifndef QUORUM_SRC_KUBE_ERRORS_H_
#define QUORUM_SRC_KUBE_ERRORS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace quorum::kube {

// One entry of an API Status's details.causes: usually a field that failed
// validation ("spec.replicas") and why.
struct StatusCause {
  std::string type;  // e.g. FieldValueInvalid
  std::string message;
  std::string field;
  bool operator==(const StatusCause&) const = default;
};

// Builds the status for a response. `body` is usually a JSON Status object;
// anything else (HTML from a proxy, garbage) still yields a status with the
// HTTP code's meaning and a trimmed excerpt of the body. `retry_after` is the
// Retry-After header value ("" when absent). Returns OkStatus for 2xx.
absl::Status StatusFromResponse(long http_code, std::string_view body,
                                std::string_view retry_after = "");

// The API's reason for an HTTP code ("Conflict" for 409), "" when none.
std::string ReasonForHttpCode(long http_code);

// Accessors for the attached API Status; defaults when the status did not
// come from an API response.
std::string Reason(const absl::Status& status);  // e.g. "Conflict", "" when unknown
int HttpCode(const absl::Status& status);        // 0 when not from a response
std::vector<StatusCause> Causes(const absl::Status& status);
std::optional<absl::Duration> RetryAfter(const absl::Status& status);

// Not found and already exists: use absl::IsNotFound / absl::IsAlreadyExists.
inline bool IsConflict(const absl::Status& s) { return absl::IsAborted(s); }
inline bool IsGone(const absl::Status& s) { return absl::IsOutOfRange(s); }
inline bool IsInvalid(const absl::Status& s) { return absl::IsInvalidArgument(s); }
inline bool IsUnauthorized(const absl::Status& s) { return absl::IsUnauthenticated(s); }
inline bool IsForbidden(const absl::Status& s) { return absl::IsPermissionDenied(s); }
inline bool IsTooManyRequests(const absl::Status& s) { return absl::IsResourceExhausted(s); }
// True for errors worth retrying with backoff (server or network trouble).
bool IsRetryable(const absl::Status& s);

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_ERRORS_H_
