#include "src/etcd/errors.h"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::etcd {
namespace {

using nlohmann::json;

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
    // Not etcd's JSON: the gateway's own HTTP 400 once auth is on.
    KnownError{"CommonName of client sending a request against gateway", kReasonClientCertHasCN,
               absl::StatusCode::kFailedPrecondition},
};

absl::StatusCode CodeFromHttp(long http_code) {
  switch (http_code) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 409:
      return absl::StatusCode::kAborted;
    case 412:
      return absl::StatusCode::kFailedPrecondition;
    case 429:
      return absl::StatusCode::kResourceExhausted;
    case 501:
      return absl::StatusCode::kUnimplemented;
    case 502:
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return http_code >= 500 ? absl::StatusCode::kInternal : absl::StatusCode::kUnknown;
  }
}

std::string Excerpt(std::string_view body) {
  constexpr size_t kMax = 200;
  std::string s(body.substr(0, kMax));
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (body.size() > kMax) s += "...";
  return s;
}

}  // namespace

absl::Status StatusFromResponse(long http_code, std::string_view body, std::string_view what) {
  if (http_code >= 200 && http_code < 300) return absl::OkStatus();
  absl::StatusCode code = CodeFromHttp(http_code);
  std::string message;
  const json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    const auto c = j.find("code");
    if (c != j.end() && c->is_number_integer()) {
      const int64_t grpc = c->get<int64_t>();
      if (grpc > 0 && grpc <= 16) code = static_cast<absl::StatusCode>(grpc);
    }
    for (const char* key : {"message", "error"}) {
      const auto m = j.find(key);
      if (m != j.end() && m->is_string() && !m->get_ref<const std::string&>().empty()) {
        message = m->get<std::string>();
        break;
      }
    }
  }
  if (message.empty()) {
    message = absl::StrCat("HTTP ", http_code, body.empty() ? "" : ": ", Excerpt(body));
  }
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
  if (reason == kReasonClientCertHasCN) {
    absl::StrAppend(&message,
                    " (with auth on, etcd's JSON gateway refuses client certificates that have a "
                    "CommonName: use one without)");
  }
  absl::Status status(code, absl::StrCat(Absl(what), ": ", message));
  if (!reason.empty()) status.SetPayload(Absl(kReasonPayload), absl::Cord(Absl(reason)));
  return status;
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
