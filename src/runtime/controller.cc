#include "src/runtime/controller.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <set>

#include "absl/time/clock.h"
#include "src/base/memory.h"
#include "src/base/work_scope.h"

namespace quorum::runtime {
namespace {

bool Passes(const std::vector<Predicate>& predicates, const Json* old_object,
            const Json* new_object) {
  for (const Predicate& p : predicates) {
    if (old_object == nullptr && new_object != nullptr) {
      if (p.create && !p.create(*new_object)) return false;
    } else if (old_object != nullptr && new_object != nullptr) {
      if (p.update && !p.update(*old_object, *new_object)) return false;
    } else if (old_object != nullptr) {
      if (p.del && !p.del(*old_object)) return false;
    }
  }
  return true;
}

WorkQueue::Options QueueOptions(const std::string& name, const ControllerOptions& o) {
  WorkQueue::Options q = o.queue;
  if (q.name.empty()) q.name = name;
  if (q.metrics == nullptr) q.metrics = o.metrics;
  return q;
}

}  // namespace

Controller::Controller(std::string name, Reconciler& reconciler, ControllerOptions options)
    : name_(std::move(name)),
      reconciler_(reconciler),
      options_(std::move(options)),
      queue_(std::make_unique<WorkQueue>(QueueOptions(name_, options_))) {
  if (Registry* m = options_.metrics) {
    reconcile_total_ =
        &m->Counter("controller_runtime_reconcile_total", "Reconciles per controller and result",
                    {"controller", "result"});
    reconcile_errors_ = &m->Counter("controller_runtime_reconcile_errors_total",
                                    "Reconcile errors per controller", {"controller"});
    reconcile_time_ = &m->Histogram("controller_runtime_reconcile_time_seconds",
                                    "Time per reconcile, per controller", {"controller"});
    active_workers_ = &m->Gauge("controller_runtime_active_workers",
                                "Workers busy reconciling, per controller", {"controller"});
    m->Gauge("controller_runtime_max_concurrent_reconciles", "Workers per controller",
             {"controller"})
        .Set({name_}, options_.workers);
  }
}

Controller::~Controller() { Stop(); }

void Controller::Watch(SharedInformer& informer, MapFunc map, std::vector<Predicate> predicates) {
  auto preds = std::make_shared<std::vector<Predicate>>(std::move(predicates));
  auto fn = std::make_shared<MapFunc>(std::move(map));
  informer.AddEventHandler({
      .on_add =
          [this, preds, fn](const ObjectPtr& o) {
            if (Passes(*preds, nullptr, o.get())) Enqueue((*fn)(*o));
          },
      .on_update =
          [this, preds, fn](const ObjectPtr& old_o, const ObjectPtr& new_o) {
            if (!Passes(*preds, old_o.get(), new_o.get())) return;
            std::vector<Request> reqs = (*fn)(*new_o);
            if (old_o != new_o) {
              std::vector<Request> old_reqs = (*fn)(*old_o);
              reqs.insert(reqs.end(), old_reqs.begin(), old_reqs.end());
            }
            Enqueue(reqs);
          },
      .on_delete =
          [this, preds, fn](const ObjectPtr& o) {
            if (Passes(*preds, o.get(), nullptr)) Enqueue((*fn)(*o));
          },
  });
}

void Controller::Enqueue(const std::vector<Request>& requests) {
  // An update maps the old and the new object, usually to the same key: add
  // it once, or a worker that takes the first Add before the second arrives
  // would reconcile the same change twice.
  std::set<std::string> keys;
  for (const Request& r : requests) {
    if (!r.name.empty()) keys.insert(r.Key());
  }
  for (const std::string& key : keys) queue_->Add(key);
}

void Controller::Start() {
  if (started_.exchange(true)) return;
  term_ = std::make_unique<Cancellation>();
  for (int i = 0; i < std::max(1, options_.workers); ++i) workers_.emplace_back([this] { Work(); });
}

void Controller::Stop() {
  if (!started_.load()) {
    queue_->ShutDown();
    return;
  }
  queue_->ShutDownWithDrain();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

void Controller::Abort() {
  if (started_.load() && term_ != nullptr) {
    spdlog::warn("controller {}: cancelling in-flight reconciles", name_);
    term_->Cancel();
  }
  Stop();
}

void Controller::Work() {
  while (std::optional<std::string> key = queue_->Get()) {
    ReconcileOne(*key);
    queue_->Done(*key);
    // Work ran out: hand the pages the reconciles freed back (src/base/memory.h).
    if (queue_->Len() == 0) ReleaseFreedMemory();
  }
}

void Controller::ReconcileOne(const std::string& key) {
  const Request request = Request::FromKey(key);
  if (active_workers_ != nullptr) active_workers_->With({name_}).Add(1);
  const absl::Time start = absl::Now();
  absl::StatusOr<Result> result;
  try {
    const absl::Time deadline = options_.reconcile_timeout > absl::ZeroDuration()
                                    ? start + options_.reconcile_timeout
                                    : absl::InfiniteFuture();
    WorkScope scope(term_.get(), deadline);
    ReadScope reads;  // each cached object decoded at most once per reconcile
    result = reconciler_.Reconcile(request);
  } catch (const std::exception& e) {
    result = absl::InternalError(std::string("reconciler threw: ") + e.what());
  } catch (...) {
    result = absl::InternalError("reconciler threw a non-standard exception");
  }
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (active_workers_ != nullptr) active_workers_->With({name_}).Add(-1);
  if (reconcile_time_ != nullptr) reconcile_time_->Observe({name_}, seconds);

  std::string outcome;
  if (!result.ok() && term_->cancelled()) {
    outcome = "cancelled";
    spdlog::info("controller {}: reconcile {} cancelled: {}", name_, key,
                 std::string(result.status().message()));
  } else if (!result.ok()) {
    if (reconcile_errors_ != nullptr) reconcile_errors_->Inc({name_});
    if (IsTerminal(result.status())) {
      outcome = "error";
      spdlog::error("controller {}: reconcile {} failed terminally: {}", name_, key,
                    std::string(result.status().message()));
      queue_->Forget(key);
    } else {
      outcome = "error";
      spdlog::warn("controller {}: reconcile {} failed (retry {}): {}", name_, key,
                   queue_->NumRequeues(key) + 1, std::string(result.status().message()));
      queue_->AddRateLimited(key);
    }
  } else if (result->requeue_after > absl::ZeroDuration()) {
    outcome = "requeue_after";
    queue_->Forget(key);
    queue_->AddAfter(key, result->requeue_after);
  } else if (result->requeue) {
    outcome = "requeue";
    queue_->AddRateLimited(key);
  } else {
    outcome = "success";
    queue_->Forget(key);
  }
  if (reconcile_total_ != nullptr) reconcile_total_->Inc({name_, outcome});
  // Every reconcile's end, at debug level: what an operator's user (and the
  // operator-upgrade e2e test) reads to know a controller has looked at an object.
  spdlog::debug("controller {}: reconcile {} done: {} in {:.3f} s", name_, key, outcome, seconds);
}

}  // namespace quorum::runtime
