#include "src/etcd/errors.h"

#include <array>
#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::etcd {
namespace {

constexpr std::string_view kReasonPayload = "type.quorum.dev/etcd.reason";

struct KnownError {
  std::string_view message;  // etcd's text after "etcdserver: "
  std::string_view reason;
  std::optional<absl::StatusCode> code;  // nullopt: keep etcd's code
};

// etcd's own codes are right for the caller except where noted.
constexpr std::array kKnownErrors = {
    // InvalidArgument in etcd; a fresh token fixes it.
    KnownError{"invalid auth token", kReasonInvalidAuthToken, absl::StatusCode::kUnauthenticated},
    KnownError{"revision of auth store is old", kReasonAuthOldRevision,
               absl::StatusCode::kUnauthenticated},
    KnownError{"user name is empty", kReasonUserEmpty, absl::StatusCode::kUnauthenticated},
    KnownError{"authentication failed", kReasonAuthFailed, absl::StatusCode::kUnauthenticated},
    KnownError{"authentication is not enabled", kReasonAuthNotEnabled, std::nullopt},
    KnownError{"can only promote a learner member which is in sync", kReasonLearnerNotReady,
               absl::StatusCode::kFailedPrecondition},
    // FailedPrecondition in 3.6: this member cannot serve it, another may.
    KnownError{"rpc not supported for learner", kReasonNotSupportedForLearner,
               absl::StatusCode::kUnavailable},
    KnownError{"member not found", kReasonMemberNotFound, absl::StatusCode::kNotFound},
    KnownError{"not leader", kReasonNotLeader, absl::StatusCode::kFailedPrecondition},
    KnownError{"permission denied", kReasonPermissionDenied, absl::StatusCode::kPermissionDenied},
    KnownError{"required revision has been compacted", kReasonCompacted,
               absl::StatusCode::kOutOfRange},
    KnownError{"database space exceeded", kReasonNoSpace, absl::StatusCode::kResourceExhausted},
    // FailedPrecondition in etcd, kept; the reason lets deletes be idempotent.
    KnownError{"user name not found", kReasonUserNotFound, std::nullopt},
    KnownError{"role name not found", kReasonRoleNotFound, std::nullopt},
};

absl::Status StatusFromEtcd(absl::StatusCode code, std::string message, std::string_view what) {
  std::string_view reason;
  for (const KnownError& e : kKnownErrors) {
    if (absl::StrContains(message, Absl(e.message))) {
      reason = e.reason;
      if (e.code.has_value()) code = *e.code;
      break;
    }
  }
  if (code == absl::StatusCode::kOk) code = absl::StatusCode::kUnknown;
  if (reason == kReasonLearnerNotReady) message = absl::StrCat("learner not ready: ", message);
  absl::Status status(code, absl::StrCat(Absl(what), ": ", message));
  if (!reason.empty()) status.SetPayload(Absl(kReasonPayload), absl::Cord(Absl(reason)));
  return status;
}

}  // namespace

absl::Status StatusFromGrpc(int grpc_code, std::string_view message, std::string_view what) {
  if (grpc_code == 0) return absl::OkStatus();
  // gRPC's codes are absl's, number for number.
  const absl::StatusCode code = grpc_code > 0 && grpc_code <= 16
                                    ? static_cast<absl::StatusCode>(grpc_code)
                                    : absl::StatusCode::kUnknown;
  return StatusFromEtcd(code, message.empty() ? "no message" : std::string(message), what);
}

std::string Reason(const absl::Status& status) {
  auto p = status.GetPayload(Absl(kReasonPayload));
  return p.has_value() ? std::string(*p) : std::string();
}

bool IsStaleToken(const absl::Status& s) {
  const std::string r = Reason(s);
  return r == kReasonInvalidAuthToken || r == kReasonAuthOldRevision || r == kReasonUserEmpty;
}

}  // namespace quorum::etcd
