// Events: what `kubectl describe` shows under "Events". EventRecorder writes
// core/v1 Events about an object asynchronously — a call copies the involved
// object's reference into a queue and returns; one background thread writes.
//
// Like client-go's EventCorrelator (simplified): a repeat of the same
// (object, type, reason, message) within the aggregation window increments
// the existing Event's count and lastTimestamp instead of creating a new
// Event, and a token bucket per involved object drops floods of distinct
// events (burst 25, then one per 5 minutes by default). A repeat spends no
// token: a retry loop repeating one warning must not silence the object's
// later events (it did: a NOSPACE recovery's last event was dropped after a
// burst of identical AddLearnerFailed). Repeats are paced by their callers'
// backoff (rate-limited requeues) and bounded by the recorder's queue.
//
// Events are readable by anyone who can read the namespace: callers must never
// put secret data in a reason or message. The recorder never logs messages.
//
// The pure correlation logic (EventCorrelator) is separate from the I/O so
// that it can be tested with explicit times.
#ifndef QUORUM_SRC_RUNTIME_EVENT_RECORDER_H_
#define QUORUM_SRC_RUNTIME_EVENT_RECORDER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/clock.h"
#include "src/kube/client.h"
#include "src/runtime/metrics.h"

namespace quorum::runtime {

// ---------------------------------------------------------------- pure part

// What makes two events "the same" for aggregation.
struct EventKey {
  std::string object;  // the involved object: its uid, or kind/namespace/name without one
  std::string type;    // Normal | Warning
  std::string reason;
  std::string message;
  auto operator<=>(const EventKey&) const = default;
};

// Decides, for each event in order, whether to drop it, create a new Event
// or patch the Event written for an earlier identical one. Pure: time is
// passed in. Memory is bounded by max_keys entries for aggregation and for
// rate limiting. Thread-compatible.
class EventCorrelator {
 public:
  struct Options {
    absl::Duration aggregation_window = absl::Minutes(10);  // since the last repeat
    double qps_per_object = 1.0 / 300;
    int burst_per_object = 25;
    size_t max_keys = 4096;
  };
  enum class Action { kDrop, kCreate, kPatch };
  struct Decision {
    Action action = Action::kDrop;
    std::string name;   // kPatch: the Event to patch
    int64_t count = 0;  // kCreate, kPatch: the count to write
    absl::Time first_timestamp;
  };

  explicit EventCorrelator(Options options) : options_(options) {}

  Decision Observe(const EventKey& key, absl::Time now);
  // The Event for `key` (a kCreate decision) was written as `name`.
  void Created(const EventKey& key, std::string name);
  // Writing the Event for `key` failed: the next repeat creates a new one.
  void Forget(const EventKey& key);

  size_t aggregated_keys() const { return entries_.size(); }
  size_t rate_limited_objects() const { return buckets_.size(); }

 private:
  struct Entry {
    std::string name;  // "" until Created()
    int64_t count = 0;
    absl::Time first, last;
  };
  struct Bucket {
    double tokens = 0;
    absl::Time last;
  };
  bool TakeToken(const std::string& object, absl::Time now);
  void TrimEntries(absl::Time now);
  void TrimBuckets(absl::Time now);

  const Options options_;
  std::map<EventKey, Entry> entries_;
  std::map<std::string, Bucket> buckets_;
};

// Helpers shared by the recorder and its tests. Pure.
// The Event name for an object: <name>.<16 hex digits>, the name part
// shortened so the whole stays a valid object name.
std::string EventName(std::string_view object_name, uint64_t unique);
// RFC 3339 in seconds, as Event timestamps are: 2026-11-29T22:00:00Z.
std::string FormatEventTime(absl::Time t);

// ---------------------------------------------------------------- recorder

struct EventRecorderOptions {
  std::string component = "quorum-operator";  // source.component, reportingComponent
  std::string host;                           // source.host; "" means this machine's hostname
  absl::Duration aggregation_window = absl::Minutes(10);
  double qps_per_object = 1.0 / 300;
  int burst_per_object = 25;
  Clock* clock = nullptr;  // nullptr: RealClock()
  // Nullable. Exports events_dropped_total{cause=rate_limit|queue_full|
  // write_error}.
  Registry* metrics = nullptr;
};

// Events go to the object's namespace ("default" for cluster-scoped objects).
// Needs RBAC create and patch on core events. Write failures are logged and
// counted, not retried: events are best effort.
// Thread-safety: Normal, Warning and Flush may be called from any thread.
class EventRecorder {
 public:
  // `client` (and options.clock, options.metrics) must outlive the recorder.
  EventRecorder(kube::Client& client, EventRecorderOptions options);
  // Writes what is queued (giving up the rest once the API server proves
  // unreachable), then stops the background thread.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Records an event about `object` (apiVersion, kind, metadata.name and
  // optionally namespace, uid, resourceVersion; only those are copied). Never
  // blocks on the API; an object without a name is ignored. `reason` is a
  // short UpperCamelCase word, `message` a human sentence (cut to 1 KiB).
  // Neither may contain secret data.
  void Normal(const kube::Json& object, std::string reason, std::string message);
  void Warning(const kube::Json& object, std::string reason, std::string message);

  // Waits until every event recorded before the call has been written or
  // dropped.
  void Flush();

 private:
  struct ObjectRef {
    std::string api_version, kind, name, ns, uid, resource_version;
  };
  struct Pending {
    ObjectRef object;
    EventKey key;
    absl::Time at;
  };

  void Record(const kube::Json& object, const char* type, std::string reason, std::string message);
  void Loop();
  // Writes one event (background thread). Returns false when the API server
  // is unreachable.
  bool Write(const Pending& p);
  bool CreateEvent(const Pending& p, int64_t count, absl::Time first);
  void Dropped(const char* cause);

  kube::Client& client_;
  const EventRecorderOptions options_;
  Clock& clock_;
  CounterFamily* dropped_ = nullptr;  // owned by the Registry
  // Background thread only.
  EventCorrelator correlator_;
  std::mt19937_64 rng_;

  absl::Mutex mu_;
  std::deque<Pending> queue_ ABSL_GUARDED_BY(mu_);
  uint64_t recorded_ ABSL_GUARDED_BY(mu_) = 0;  // events queued or dropped at once
  uint64_t done_ ABSL_GUARDED_BY(mu_) = 0;      // of those, written or dropped
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once everything above is initialized
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_EVENT_RECORDER_H_
