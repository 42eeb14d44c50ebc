#include "src/runtime/workqueue.h"

#include <algorithm>
#include <utility>

namespace quorum::runtime {
namespace {

// controller-runtime's buckets for the workqueue histograms: 10 ns .. 1000 s.
std::vector<double> DurationBounds() {
  std::vector<double> bounds;
  double b = 1e-8;
  for (int i = 0; i < 12; ++i, b *= 10) bounds.push_back(b);
  return bounds;
}

}  // namespace

// Stable pointers into the registry, so that updates skip the family lookup.
struct WorkQueue::Metrics {
  explicit Metrics(Registry& r, const std::string& name)
      : labels{name},
        depth(r.Gauge("workqueue_depth", "Current depth of workqueue", {"name"}).With(labels)),
        adds(
            r.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", {"name"})
                .With(labels)),
        retries(r.Counter("workqueue_retries_total", "Total number of retries handled by workqueue",
                          {"name"})
                    .With(labels)),
        queue_duration(r.Histogram("workqueue_queue_duration_seconds",
                                   "How long in seconds an item stays in workqueue before being "
                                   "requested",
                                   {"name"}, DurationBounds())),
        work_duration(r.Histogram("workqueue_work_duration_seconds",
                                  "How long in seconds processing an item from workqueue takes",
                                  {"name"}, DurationBounds())) {}

  const LabelValues labels;
  AtomicDouble& depth;
  AtomicDouble& adds;
  AtomicDouble& retries;
  HistogramFamily& queue_duration;
  HistogramFamily& work_duration;
};

WorkQueue::WorkQueue(Options options)
    : options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock()),
      bucket_(options_.qps, options_.burst, clock_),
      metrics_(options_.metrics ? std::make_unique<Metrics>(*options_.metrics, options_.name)
                                : nullptr) {}

WorkQueue::~WorkQueue() { ShutDown(); }

absl::Time WorkQueue::NowIfNeededLocked() {
  return metrics_ || !delayed_.empty() ? clock_.Now() : absl::InfinitePast();
}

void WorkQueue::SetDepthLocked() {
  if (metrics_) metrics_->depth.Set(static_cast<double>(ready_.size()));
}

void WorkQueue::AddLocked(const std::string& key, absl::Time now) {
  if (shutting_down_) return;
  Item& item = items_[key];
  if (item.dirty) return;
  item.dirty = true;
  item.added = now;
  if (metrics_) metrics_->adds.Add(1);
  if (item.processing) return;  // Done() re-queues it
  ready_.push_back(key);
  SetDepthLocked();
}

void WorkQueue::PromoteDueLocked(absl::Time now) {
  while (!delayed_.empty() && delayed_.top().due <= now) {
    // The key is moved out before pop(): top() is const only to protect the
    // heap order, which pop() no longer needs.
    Delayed d = std::move(const_cast<Delayed&>(delayed_.top()));
    delayed_.pop();
    auto it = due_.find(d.key);
    if (it == due_.end() || it->second != d.due) continue;  // superseded by an earlier delay
    due_.erase(it);
    AddLocked(d.key, now);
  }
}

void WorkQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = NowIfNeededLocked();
  PromoteDueLocked(now);
  AddLocked(key, now);
}

void WorkQueue::AddAfter(const std::string& key, absl::Duration delay) {
  if (delay <= absl::ZeroDuration()) return Add(key);
  absl::MutexLock lock(&mu_);
  if (shutting_down_) return;
  const absl::Time now = clock_.Now();
  PromoteDueLocked(now);
  const absl::Time due = now + delay;
  auto [it, inserted] = due_.try_emplace(key, due);
  if (!inserted) {
    if (it->second <= due) return;  // an earlier delay is already pending
    it->second = due;
  }
  const bool earliest = delayed_.empty() || due < delayed_.top().due;
  delayed_.push(Delayed{due, next_seq_++, key});
  if (earliest) ++wake_generation_;  // blocked Get() calls must wait less
}

absl::Duration WorkQueue::Backoff(const std::string& key) {
  absl::MutexLock lock(&mu_);
  const int exp = requeues_[key]++;
  // 2^exp overflows int64 past 62; the cap is reached long before anyway.
  if (exp >= 62) return options_.max_delay;
  return std::min(options_.base_delay * (int64_t{1} << exp), options_.max_delay);
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (metrics_) metrics_->retries.Add(1);
  // The bucket is asked even when the backoff is longer, as client-go's
  // MaxOfRateLimiter does: every retry spends a token.
  const absl::Duration backoff = Backoff(key);
  AddAfter(key, std::max(backoff, bucket_.Reserve()));
}

void WorkQueue::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  requeues_.erase(key);
}

int WorkQueue::NumRequeues(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = requeues_.find(key);
  return it == requeues_.end() ? 0 : it->second;
}

std::optional<std::string> WorkQueue::Get() {
  std::string key;
  absl::Duration waited;
  {
    absl::MutexLock lock(&mu_);
    absl::Time now = NowIfNeededLocked();
    for (;;) {
      if (shutting_down_) return std::nullopt;
      PromoteDueLocked(now);
      if (!ready_.empty()) break;
      const uint64_t seen = wake_generation_;
      auto woken = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return shutting_down_ || !ready_.empty() || wake_generation_ != seen;
      };
      if (delayed_.empty()) {
        mu_.Await(absl::Condition(&woken));
      } else {
        mu_.AwaitWithTimeout(absl::Condition(&woken), delayed_.top().due - now);
      }
      now = NowIfNeededLocked();
    }
    key = std::move(ready_.front());
    ready_.pop_front();
    SetDepthLocked();
    Item& item = items_[key];
    item.dirty = false;
    item.processing = true;
    ++processing_;
    if (metrics_) {
      item.started = now;
      waited = now - item.added;
    }
  }
  if (metrics_) {
    metrics_->queue_duration.Observe(metrics_->labels, absl::ToDoubleSeconds(waited));
  }
  return key;
}

void WorkQueue::Done(const std::string& key) {
  absl::Duration worked;
  {
    absl::MutexLock lock(&mu_);
    auto it = items_.find(key);
    if (it == items_.end() || !it->second.processing) return;
    const absl::Time now = NowIfNeededLocked();
    PromoteDueLocked(now);
    Item& item = it->second;
    if (metrics_) worked = now - item.started;
    item.processing = false;
    --processing_;
    if (item.dirty && !shutting_down_) {
      ready_.push_back(key);
      SetDepthLocked();
    } else {
      items_.erase(it);
    }
  }
  if (metrics_) {
    metrics_->work_duration.Observe(metrics_->labels, absl::ToDoubleSeconds(worked));
  }
}

void WorkQueue::Poke() {
  absl::MutexLock lock(&mu_);
  PromoteDueLocked(NowIfNeededLocked());
  ++wake_generation_;
}

void WorkQueue::ShutDown() {
  absl::MutexLock lock(&mu_);
  ShutDownLocked();
}

void WorkQueue::ShutDownLocked() {
  shutting_down_ = true;
  draining_ = false;  // releases a ShutDownWithDrain() in progress
  ready_.clear();
  delayed_ = {};
  due_.clear();
  std::erase_if(items_, [](const auto& entry) { return !entry.second.processing; });
  for (auto& [key, item] : items_) item.dirty = false;
  SetDepthLocked();
}

void WorkQueue::ShutDownWithDrain() {
  absl::MutexLock lock(&mu_);
  ShutDownLocked();
  draining_ = true;
  auto drained = [this]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return processing_ == 0 || !draining_; };
  mu_.Await(absl::Condition(&drained));
  draining_ = false;
}

bool WorkQueue::ShuttingDown() const {
  absl::MutexLock lock(&mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  absl::MutexLock lock(&mu_);
  return ready_.size();
}

bool WorkQueue::Idle() const {
  absl::MutexLock lock(&mu_);
  return ready_.empty() && processing_ == 0;
}

}  // namespace quorum::runtime
