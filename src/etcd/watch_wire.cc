#include "src/etcd/watch_wire.h"

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"
#include "src/etcd/gateway_json.h"

namespace quorum::etcd {
namespace wire {
namespace {

using nlohmann::json;

using gateway::Field;

int64_t I64(const json& j, const char* key) {
  const json* f = Field(j, key);
  if (f == nullptr) return 0;
  if (f->is_number_integer()) return f->get<int64_t>();
  int64_t v = 0;
  if (f->is_string() && absl::SimpleAtoi(f->get_ref<const std::string&>(), &v)) return v;
  return 0;
}

std::string String(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

bool Bool(const json& j, const char* key) {
  const json* f = Field(j, key);
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

std::string Bytes(const json& j, const char* key) {
  std::string out;
  if (!absl::Base64Unescape(String(j, key), &out)) out.clear();
  return out;
}

// The event type: omitted (PUT, the zero value), a name, or a number.
KeyEvent::Type EventType(const json& event) {
  const json* t = Field(event, "type");
  if (t == nullptr) return KeyEvent::Type::kPut;
  if (t->is_string()) {
    return t->get_ref<const std::string&>() == "DELETE" ? KeyEvent::Type::kDelete
                                                        : KeyEvent::Type::kPut;
  }
  return t->is_number_integer() && t->get<int64_t>() == 1 ? KeyEvent::Type::kDelete
                                                          : KeyEvent::Type::kPut;
}

}  // namespace

std::string WatchCreateRequest(std::string_view key, std::string_view range_end,
                               int64_t start_revision) {
  json create = json::object();
  create["key"] = absl::Base64Escape(Absl(key));
  if (!range_end.empty()) create["range_end"] = absl::Base64Escape(Absl(range_end));
  if (start_revision > 0) create["start_revision"] = std::to_string(start_revision);
  create["progress_notify"] = true;
  return json{{"create_request", create}}.dump();
}

absl::StatusOr<WatchMessage> ParseWatchMessage(std::string_view object) {
  const json j = json::parse(object.begin(), object.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InternalError("a watch message is not a JSON object");
  }
  if (const json* error = Field(j, "error"); error != nullptr) {
    // The gateway's error object carries etcd's code and message like an
    // error answer does; its HTTP code decides when the body does not.
    // grpc-gateway v1 names the code grpc_code, v2 code.
    const long http = I64(*error, "http_code") > 0 ? I64(*error, "http_code") : 500;
    const int64_t code = I64(*error, "code") > 0 ? I64(*error, "code") : I64(*error, "grpc_code");
    json body{{"message", String(*error, "message")}};
    if (code > 0) body["code"] = code;
    return StatusFromResponse(http, body.dump(), "watch");
  }
  const json* result = Field(j, "result");
  if (result == nullptr || !result->is_object()) {
    return absl::InternalError("a watch message has neither a result nor an error");
  }
  WatchMessage m;
  if (const json* header = Field(*result, "header"); header != nullptr) {
    m.revision = I64(*header, "revision");
  }
  m.created = Bool(*result, "created");
  m.canceled = Bool(*result, "canceled");
  m.cancel_reason = String(*result, "cancel_reason");
  m.compact_revision = I64(*result, "compact_revision");
  if (const json* events = Field(*result, "events"); events != nullptr && events->is_array()) {
    for (const json& e : *events) {
      const json* kv = Field(e, "kv");
      if (kv == nullptr || !kv->is_object()) continue;
      KeyEvent ke;
      ke.type = EventType(e);
      ke.key = Bytes(*kv, "key");
      ke.value = ke.type == KeyEvent::Type::kPut ? Bytes(*kv, "value") : "";
      ke.mod_revision = I64(*kv, "mod_revision");
      m.events.push_back(std::move(ke));
    }
  }
  return m;
}

absl::Status CancelStatus(const WatchMessage& message, std::string_view what) {
  if (message.compact_revision > 0) {
    return absl::OutOfRangeError(absl::StrCat(Absl(what), ": required revision has been compacted",
                                              " (oldest kept: ", message.compact_revision, ")"));
  }
  if (message.cancel_reason.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(Absl(what), ": cancelled by etcd"));
  }
  // A reason etcd does not know keeps FailedPrecondition (HTTP 400's code is
  // InvalidArgument, which would say "do not retry").
  json body{{"message", message.cancel_reason}, {"code", 9}};
  return StatusFromResponse(400, body.dump(), what);
}

}  // namespace wire

absl::Status WatchFramer::Feed(std::string_view chunk,
                               const std::function<bool(std::string_view)>& emit) {
  buffer_.append(chunk);
  size_t start = 0;  // the first byte of the object being scanned
  for (size_t i = scanned_; i < buffer_.size(); ++i) {
    const char c = buffer_[i];
    if (depth_ == 0) {
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        start = i + 1;
        continue;
      }
      if (c != '{') {
        buffer_.clear();
        scanned_ = 0;
        return absl::InternalError("the watch stream holds something that is not a JSON object");
      }
      start = i;
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        const bool more = emit(std::string_view(buffer_).substr(start, i + 1 - start));
        start = i + 1;
        if (!more) {
          buffer_.erase(0, start);
          scanned_ = 0;
          return absl::OkStatus();
        }
      }
    }
  }
  // Keep the unfinished object (or nothing).
  if (depth_ == 0) start = buffer_.size();
  buffer_.erase(0, std::min(start, buffer_.size()));
  scanned_ = buffer_.size();
  if (buffer_.size() > kMaxObject) {
    buffer_.clear();
    scanned_ = 0;
    depth_ = 0;
    in_string_ = escaped_ = false;
    return absl::InternalError("a watch message is larger than 16 MiB");
  }
  return absl::OkStatus();
}

}  // namespace quorum::etcd
