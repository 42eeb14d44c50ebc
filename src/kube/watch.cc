#include "src/kube/watch.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/kube/errors.h"
#include "src/kube/managed_fields.h"

namespace quorum::kube {
namespace {

bool TypeFromString(std::string_view s, WatchEventType& out) {
  if (s == "ADDED")
    out = WatchEventType::kAdded;
  else if (s == "MODIFIED")
    out = WatchEventType::kModified;
  else if (s == "DELETED")
    out = WatchEventType::kDeleted;
  else if (s == "BOOKMARK")
    out = WatchEventType::kBookmark;
  else if (s == "ERROR")
    out = WatchEventType::kError;
  else
    return false;
  return true;
}

std::string RvOf(const Json& object) {
  return json_access::Str(json_access::At(object, {"metadata", "resourceVersion"}));
}

absl::StatusOr<WatchEvent> ParseEventText(std::string_view line) {
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InternalError(
        absl::StrCat("malformed watch event: not a JSON object (", line.size(), " bytes)"));
  }
  const Json* type_field = json_access::Child(&j, "type");
  if (type_field == nullptr || !type_field->is_string()) {
    return absl::InternalError("malformed watch event: no \"type\"");
  }
  WatchEvent ev{WatchEventType::kError, Json::object()};
  const std::string type = type_field->get<std::string>();
  if (!TypeFromString(type, ev.type)) {
    return absl::InternalError(absl::StrCat("malformed watch event: unknown type \"", type, "\""));
  }
  auto object = j.find("object");
  if (object == j.end() || !object->is_object()) {
    return absl::InternalError(absl::StrCat("malformed watch event: ", type, " without object"));
  }
  ev.object = std::move(*object);
  return ev;
}

}  // namespace

absl::StatusOr<WatchEvent> ParseWatchEvent(std::string_view line, bool drop_managed_fields) {
  if (!drop_managed_fields) return ParseEventText(line);
  std::string scratch;
  return ParseEventText(WithoutManagedFields(line, scratch));
}

absl::Status WatchDecoder::Feed(std::string_view chunk,
                                const std::function<bool(WatchEvent)>& emit) {
  buffer_.append(chunk);
  size_t start = 0;
  absl::Status status = absl::OkStatus();
  for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(buffer_.data() + start, nl - start);
    if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    absl::StatusOr<WatchEvent> ev =
        ParseEventText(drop_managed_fields_ ? WithoutManagedFields(line, scratch_) : line);
    if (!ev.ok()) {
      status = ev.status();
      start = nl + 1;
      break;
    }
    if (!emit(*std::move(ev))) {
      start = nl + 1;
      break;
    }
  }
  buffer_.erase(0, start);
  return status;
}

absl::Duration NextBackoff(absl::Duration current, absl::Duration initial, absl::Duration max) {
  if (current <= absl::ZeroDuration()) return std::min(initial, max);
  return std::min(current * 2, max);
}

absl::Duration Jittered(absl::Duration d, double unit_random) {
  return d + d * (0.25 * std::clamp(unit_random, 0.0, 1.0));
}

Watcher::Watcher(Client& client, GroupVersionResource gvr, std::string ns, Options options)
    : client_(client),
      gvr_(std::move(gvr)),
      ns_(std::move(ns)),
      options_(std::move(options)),
      resource_version_(options_.list.resource_version) {}

std::string Watcher::resource_version() const {
  absl::MutexLock lock(&mu_);
  return resource_version_;
}

void Watcher::set_resource_version(std::string rv) {
  absl::MutexLock lock(&mu_);
  resource_version_ = std::move(rv);
}

absl::Status Watcher::WatchOnce(const std::function<bool(WatchEvent&)>& handler,
                                Cancellation& cancel, bool& handler_stopped, bool& got_events) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  ListOptions list = options_.list;
  list.resource_version = resource_version();
  list.allow_watch_bookmarks = true;
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  const int64_t timeout = absl::ToInt64Seconds(options_.min_timeout * (1 + r));
  list.timeout_seconds = timeout;

  HttpRequest req{.path = ResourcePath(gvr_, ns_) + EncodeQuery(ListQuery(list, true)),
                  .timeout = absl::Seconds(timeout + 30)};
  WatchDecoder decoder(options_.drop_managed_fields);
  absl::Status stream_status = absl::OkStatus();
  auto on_event = [&](WatchEvent ev) {
    got_events = true;
    if (ev.type == WatchEventType::kError) {
      const long code = ev.object.value("code", 0);
      stream_status = StatusFromResponse(code == 0 ? 500 : code, DumpJson(ev.object));
      return false;
    }
    const std::string rv = RvOf(ev.object);
    if (!rv.empty()) set_resource_version(rv);
    if (ev.type == WatchEventType::kBookmark) return true;
    if (!handler(ev)) {
      handler_stopped = true;
      return false;
    }
    return true;
  };
  std::function<bool(std::string_view)> on_data = [&](std::string_view chunk) {
    absl::Status s = decoder.Feed(chunk, on_event);
    if (!s.ok()) stream_status = s;
    return stream_status.ok() && !handler_stopped;
  };

  client_.limiter_.Wait();
  const absl::Time start = client_.clock().Now();
  absl::StatusOr<HttpResponse> resp = client_.transport().Stream(req, on_data, &cancel);
  if (client_.observer_) {
    client_.observer_(
        {"watch", gvr_.resource, resp.ok() ? resp->code : 0, client_.clock().Now() - start});
  }
  if (!resp.ok()) return resp.status();
  if (!stream_status.ok() || handler_stopped) return stream_status;
  absl::Status http = StatusFromResponse(resp->code, resp->body, resp->retry_after);
  if (http.ok() && decoder.buffered() > 0) {
    return absl::InternalError(absl::StrCat("watch stream ended inside an event (",
                                            decoder.buffered(), " bytes of a partial line)"));
  }
  return http;
}

absl::Status Watcher::Run(const std::function<bool(WatchEvent&)>& handler, Cancellation& cancel) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  absl::Duration backoff = absl::ZeroDuration();
  while (!cancel.cancelled()) {
    bool handler_stopped = false, got_events = false;
    absl::Status s = WatchOnce(handler, cancel, handler_stopped, got_events);
    if (handler_stopped) return absl::OkStatus();
    if (cancel.cancelled()) break;
    if (IsGone(s)) return s;
    if (got_events) backoff = absl::ZeroDuration();  // the stream worked; start over
    if (s.ok()) {
      if (got_events) continue;  // a normal end of a watch: reconnect at once
      // A stream that ends without a single event may be a broken proxy;
      // do not hammer the server.
      s = absl::UnavailableError("watch stream closed without events");
    }
    backoff = NextBackoff(backoff, options_.initial_backoff, options_.max_backoff);
    absl::Duration wait = Jittered(backoff, std::uniform_real_distribution<double>(0, 1)(rng));
    if (std::optional<absl::Duration> ra = RetryAfter(s); ra && *ra > wait) wait = *ra;
    if (options_.on_error) options_.on_error(s, wait);
    if (cancel.WaitFor(wait)) break;
  }
  return absl::CancelledError("watch cancelled");
}

}  // namespace quorum::kube
