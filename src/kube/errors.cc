#include "src/kube/errors.h"

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/base/strings.h"

namespace quorum::kube {
namespace {

constexpr char kPayloadUrl[] = "type.quorum.dev/kube.Status";
constexpr size_t kExcerpt = 200;

using nlohmann::json;

absl::StatusCode CodeFor(long http_code, std::string_view reason) {
  switch (http_code) {
    case 400:
    case 406:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 405:
      return absl::StatusCode::kUnimplemented;
    case 409:
      return reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists
                                       : absl::StatusCode::kAborted;
    case 410:
      return absl::StatusCode::kOutOfRange;
    case 429:
      return absl::StatusCode::kResourceExhausted;
    case 500:
      return reason == "Timeout" ? absl::StatusCode::kDeadlineExceeded
                                 : absl::StatusCode::kInternal;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      if (http_code >= 500) return absl::StatusCode::kUnavailable;
      return absl::StatusCode::kUnknown;
  }
}

std::string ReasonFor(long http_code) {
  switch (http_code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

std::string Excerpt(std::string_view body) {
  std::string out(absl::StripAsciiWhitespace(Absl(body.substr(0, kExcerpt))));
  for (char& c : out) {
    if (!absl::ascii_isprint(static_cast<unsigned char>(c))) c = ' ';
  }
  if (body.size() > kExcerpt) out += "...";
  return out;
}

std::optional<json> Payload(const absl::Status& status) {
  auto cord = status.GetPayload(kPayloadUrl);
  if (!cord) return std::nullopt;
  json j = json::parse(std::string(*cord), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace

absl::Status StatusFromResponse(long http_code, std::string_view body,
                                std::string_view retry_after) {
  if (http_code >= 200 && http_code < 300) return absl::OkStatus();
  json payload = {{"code", http_code}};
  std::string reason, message;
  json parsed = json::parse(body.begin(), body.end(), nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object() && parsed.value("kind", "") == "Status") {
    reason = parsed.value("reason", "");
    message = parsed.value("message", "");
    const json* details = json_access::Child(&parsed, "details");
    json causes = json::array();
    if (const json* list = json_access::Child(details, "causes"); list && list->is_array()) {
      for (const json& c : *list) {
        if (!c.is_object()) continue;
        causes.push_back({{"type", c.value("reason", "")},
                          {"message", c.value("message", "")},
                          {"field", c.value("field", "")}});
      }
    }
    payload["causes"] = std::move(causes);
    if (const std::optional<int64_t> seconds =
            json_access::Int(json_access::Child(details, "retryAfterSeconds"))) {
      payload["retryAfterSeconds"] = *seconds;
    }
  } else {
    message = body.empty() ? std::string("empty response body")
                           : absl::StrCat("unexpected response body: ", Excerpt(body));
  }
  if (reason.empty()) reason = ReasonFor(http_code);
  int64_t seconds = 0;
  if (!retry_after.empty() &&
      absl::SimpleAtoi(absl::StripAsciiWhitespace(Absl(retry_after)), &seconds) && seconds >= 0) {
    payload["retryAfterSeconds"] = seconds;  // the header wins over the body
  }
  payload["reason"] = reason;
  absl::Status status(
      CodeFor(http_code, reason),
      absl::StrCat("API server: ", http_code, " ", reason, message.empty() ? "" : ": ", message));
  status.SetPayload(kPayloadUrl,
                    absl::Cord(payload.dump(-1, ' ', false, json::error_handler_t::replace)));
  return status;
}

std::string ReasonForHttpCode(long http_code) { return ReasonFor(http_code); }

std::string Reason(const absl::Status& status) {
  auto p = Payload(status);
  return p ? p->value("reason", "") : "";
}

int HttpCode(const absl::Status& status) {
  auto p = Payload(status);
  return p ? p->value("code", 0) : 0;
}

std::vector<StatusCause> Causes(const absl::Status& status) {
  std::vector<StatusCause> out;
  const auto p = Payload(status);
  const json* causes = p ? json_access::Child(&*p, "causes") : nullptr;
  if (causes == nullptr) return out;
  for (const json& c : *causes) {
    out.push_back({c.value("type", ""), c.value("message", ""), c.value("field", "")});
  }
  return out;
}

std::optional<absl::Duration> RetryAfter(const absl::Status& status) {
  const auto p = Payload(status);
  const std::optional<int64_t> seconds =
      p ? json_access::Int(json_access::Child(&*p, "retryAfterSeconds")) : std::nullopt;
  if (!seconds.has_value()) return std::nullopt;
  return absl::Seconds(*seconds);
}

bool IsRetryable(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kAborted:
      return true;
    default:
      return false;
  }
}

}  // namespace quorum::kube
