#include "src/runtime/event_recorder.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/kube/errors.h"
#include "src/kube/resources.h"

namespace quorum::runtime {
namespace {

using kube::kEvents;
constexpr size_t kMaxQueue = 1000;         // like client-go's broadcaster channel
constexpr size_t kMaxMessageBytes = 1024;  // events.k8s.io's limit; core/v1 is laxer
constexpr size_t kMaxNameBytes = 253;

std::string StringField(const kube::Json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// Cuts `s` to at most `max` bytes without splitting a UTF-8 sequence.
void Truncate(std::string& s, size_t max) {
  if (s.size() <= max) return;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
}

// Replaces invalid UTF-8 (which nlohmann::json refuses to serialize) with
// U+FFFD, so that a bad message can never throw.
kube::Json Sanitized(const kube::Json& j) {
  kube::Json out = kube::Json::parse(j.dump(-1, ' ', false, kube::Json::error_handler_t::replace),
                                     nullptr, /*allow_exceptions=*/false);
  return out.is_discarded() ? kube::Json::object() : out;
}

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

bool Unreachable(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s);
}

}  // namespace

// ---------------------------------------------------------------- pure part

EventCorrelator::Decision EventCorrelator::Observe(const EventKey& key, absl::Time now) {
  auto it = entries_.find(key);
  if (it != entries_.end() && !it->second.name.empty() &&
      now - it->second.last <= options_.aggregation_window) {
    Entry& e = it->second;
    ++e.count;
    e.last = std::max(e.last, now);
    return {.action = Action::kPatch, .name = e.name, .count = e.count, .first_timestamp = e.first};
  }
  if (!TakeToken(key.object, now)) return {.action = Action::kDrop};
  entries_[key] = Entry{.name = "", .count = 1, .first = now, .last = now};
  TrimEntries(now);
  return {.action = Action::kCreate, .count = 1, .first_timestamp = now};
}

void EventCorrelator::Created(const EventKey& key, std::string name) {
  auto it = entries_.find(key);
  if (it != entries_.end()) it->second.name = std::move(name);
}

void EventCorrelator::Forget(const EventKey& key) { entries_.erase(key); }

bool EventCorrelator::TakeToken(const std::string& object, absl::Time now) {
  const double burst = std::max(1, options_.burst_per_object);
  auto [it, inserted] = buckets_.try_emplace(object, Bucket{.tokens = burst, .last = now});
  Bucket& b = it->second;
  if (now > b.last) {
    b.tokens = std::min(burst, b.tokens + absl::ToDoubleSeconds(now - b.last) *
                                              std::max(0.0, options_.qps_per_object));
    b.last = now;
  }
  const bool ok = b.tokens >= 1;
  if (ok) b.tokens -= 1;
  if (inserted) TrimBuckets(now);
  return ok;
}

void EventCorrelator::TrimEntries(absl::Time now) {
  if (entries_.size() <= options_.max_keys) return;
  std::erase_if(entries_,
                [&](const auto& kv) { return now - kv.second.last > options_.aggregation_window; });
  while (entries_.size() > options_.max_keys) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(),
        [](const auto& a, const auto& b) { return a.second.last < b.second.last; });
    entries_.erase(oldest);
  }
}

void EventCorrelator::TrimBuckets(absl::Time now) {
  if (buckets_.size() <= options_.max_keys) return;
  // A bucket that has refilled is the same as no bucket.
  const double burst = std::max(1, options_.burst_per_object);
  std::erase_if(buckets_, [&](const auto& kv) {
    const Bucket& b = kv.second;
    return b.tokens + absl::ToDoubleSeconds(now - b.last) * options_.qps_per_object >= burst;
  });
  while (buckets_.size() > options_.max_keys) {
    auto oldest = std::min_element(
        buckets_.begin(), buckets_.end(),
        [](const auto& a, const auto& b) { return a.second.last < b.second.last; });
    buckets_.erase(oldest);
  }
}

std::string EventName(std::string_view object_name, uint64_t unique) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(unique));
  std::string name(object_name.substr(0, kMaxNameBytes - 17));
  while (!name.empty() && (name.back() == '.' || name.back() == '-')) name.pop_back();
  if (name.empty()) name = "object";
  return absl::StrCat(name, ".", hex);
}

std::string FormatEventTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// ---------------------------------------------------------------- recorder

EventRecorder::EventRecorder(kube::Client& client, EventRecorderOptions options)
    : client_(client),
      options_([&] {
        if (options.host.empty()) options.host = Hostname();
        return std::move(options);
      }()),
      clock_(options_.clock != nullptr ? *options_.clock : RealClock()),
      correlator_({.aggregation_window = options_.aggregation_window,
                   .qps_per_object = options_.qps_per_object,
                   .burst_per_object = options_.burst_per_object}),
      rng_(std::random_device{}()) {
  if (options_.metrics != nullptr) {
    dropped_ = &options_.metrics->Counter(
        "events_dropped_total", "Events not written to the API server, by cause.", {"cause"});
  }
  thread_ = std::thread([this] { Loop(); });
}

EventRecorder::~EventRecorder() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void EventRecorder::Normal(const kube::Json& object, std::string reason, std::string message) {
  Record(object, "Normal", std::move(reason), std::move(message));
}

void EventRecorder::Warning(const kube::Json& object, std::string reason, std::string message) {
  Record(object, "Warning", std::move(reason), std::move(message));
}

void EventRecorder::Record(const kube::Json& object, const char* type, std::string reason,
                           std::string message) {
  ObjectRef ref;
  ref.api_version = StringField(object, "apiVersion");
  ref.kind = StringField(object, "kind");
  if (object.is_object() && object.contains("metadata")) {
    const kube::Json& meta = object["metadata"];
    ref.name = StringField(meta, "name");
    ref.ns = StringField(meta, "namespace");
    ref.uid = StringField(meta, "uid");
    ref.resource_version = StringField(meta, "resourceVersion");
  }
  if (ref.name.empty()) {
    spdlog::warn("event recorder: ignoring an event about an object without a name reason={}",
                 reason);
    return;
  }
  Truncate(message, kMaxMessageBytes);
  EventKey key{
      .object = ref.uid.empty() ? absl::StrCat(ref.kind, "/", ref.ns, "/", ref.name) : ref.uid,
      .type = type,
      .reason = std::move(reason),
      .message = std::move(message)};
  const absl::Time at = clock_.Now();
  {
    absl::MutexLock lock(&mu_);
    ++recorded_;
    if (queue_.size() < kMaxQueue) {
      queue_.push_back({.object = std::move(ref), .key = std::move(key), .at = at});
      return;
    }
    ++done_;
  }
  Dropped("queue_full");
}

void EventRecorder::Flush() {
  absl::MutexLock lock(&mu_);
  const uint64_t target = recorded_;
  auto written = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done_ >= target; };
  mu_.Await(absl::Condition(&written));
}

void EventRecorder::Dropped(const char* cause) {
  if (dropped_ != nullptr) dropped_->Inc({cause});
}

void EventRecorder::Loop() {
  bool reachable = true;
  while (true) {
    Pending p;
    bool stopping;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !queue_.empty() || stopping_; };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, and everything is written
      p = std::move(queue_.front());
      queue_.pop_front();
      stopping = stopping_;
    }
    if (stopping && !reachable) {
      // Shutting down with the API server unreachable: do not wait a request
      // timeout per remaining event.
      Dropped("write_error");
    } else {
      try {
        reachable = Write(p);
      } catch (const std::exception& e) {  // a bug: nothing in Write should throw
        spdlog::error("event recorder: unexpected exception reason={} error=\"{}\"", p.key.reason,
                      e.what());
        Dropped("write_error");
      }
    }
    absl::MutexLock lock(&mu_);
    ++done_;
  }
}

bool EventRecorder::Write(const Pending& p) {
  const EventCorrelator::Decision d = correlator_.Observe(p.key, p.at);
  switch (d.action) {
    case EventCorrelator::Action::kDrop:
      spdlog::debug("event recorder: rate limit dropped an event object={}/{} reason={}",
                    p.object.kind, p.object.name, p.key.reason);
      Dropped("rate_limit");
      return true;
    case EventCorrelator::Action::kCreate:
      return CreateEvent(p, d.count, d.first_timestamp);
    case EventCorrelator::Action::kPatch:
      break;
  }
  const std::string ns = p.object.ns.empty() ? "default" : p.object.ns;
  const kube::Json patch = {{"count", d.count}, {"lastTimestamp", FormatEventTime(p.at)}};
  absl::StatusOr<kube::Json> patched = client_.Patch(kEvents, ns, d.name, kube::PatchType::kMerge,
                                                     patch, {.discard_response = true});
  if (patched.ok()) return true;
  // The Event expired (events have a TTL) or was deleted: write it anew.
  if (absl::IsNotFound(patched.status())) return CreateEvent(p, d.count, d.first_timestamp);
  spdlog::warn("event recorder: cannot update event={}/{} reason={} error=\"{}\"", ns, d.name,
               p.key.reason, patched.status().ToString());
  Dropped("write_error");
  return !Unreachable(patched.status());
}

bool EventRecorder::CreateEvent(const Pending& p, int64_t count, absl::Time first) {
  const ObjectRef& o = p.object;
  const std::string ns = o.ns.empty() ? "default" : o.ns;
  kube::Json involved = {{"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name}};
  if (!o.ns.empty()) involved["namespace"] = o.ns;
  if (!o.uid.empty()) involved["uid"] = o.uid;
  if (!o.resource_version.empty()) involved["resourceVersion"] = o.resource_version;
  kube::Json source = {{"component", options_.component}};
  if (!options_.host.empty()) source["host"] = options_.host;
  kube::Json event = {{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", {{"namespace", ns}}},
                      {"involvedObject", std::move(involved)},
                      {"type", p.key.type},
                      {"reason", p.key.reason},
                      {"message", p.key.message},
                      {"source", std::move(source)},
                      {"reportingComponent", options_.component},
                      {"reportingInstance", options_.host},
                      {"firstTimestamp", FormatEventTime(first)},
                      {"lastTimestamp", FormatEventTime(p.at)},
                      {"count", count}};
  event = Sanitized(event);
  absl::Status status;
  for (int attempt = 0; attempt < 2; ++attempt) {  // a second name if the first was taken
    const std::string name = EventName(o.name, rng_());
    event["metadata"]["name"] = name;
    absl::StatusOr<kube::Json> created =
        client_.Create(kEvents, ns, event, {.discard_response = true});
    if (created.ok()) {
      correlator_.Created(p.key, name);
      return true;
    }
    status = created.status();
    if (!absl::IsAlreadyExists(status)) break;
  }
  correlator_.Forget(p.key);
  spdlog::warn("event recorder: cannot create event object={}/{}/{} reason={} error=\"{}\"", o.kind,
               ns, o.name, p.key.reason, status.ToString());
  Dropped("write_error");
  return !Unreachable(status);
}

}  // namespace quorum::runtime
