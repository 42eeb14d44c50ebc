// Controller: turns watched objects' changes into reconcile requests on a
// deduplicating, rate-limited work queue, and runs N workers that call a
// Reconciler — controller-runtime's Controller. A request is never
// reconciled by two workers at once. Metrics (when a Registry is given), with
// controller-runtime's names: controller_runtime_reconcile_total{controller,
// result}, controller_runtime_reconcile_errors_total{controller},
// controller_runtime_reconcile_time_seconds{controller},
// controller_runtime_active_workers{controller}, plus the queue's workqueue_*.
// Thread-safety: Watch() before Start(); Start/Stop from one thread; the
// rest is thread-safe.
#ifndef QUORUM_SRC_RUNTIME_CONTROLLER_H_
#define QUORUM_SRC_RUNTIME_CONTROLLER_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/base/cancellation.h"
#include "src/runtime/handler.h"
#include "src/runtime/informer.h"
#include "src/runtime/metrics.h"
#include "src/runtime/reconciler.h"
#include "src/runtime/workqueue.h"

namespace quorum::runtime {

struct ControllerOptions {
  int workers = 1;
  WorkQueue::Options queue;  // queue.name defaults to the controller's name
  Registry* metrics = nullptr;
  // Each Reconcile runs in a WorkScope (src/base/work_scope.h) with this
  // deadline; zero means none. Abort() cancels the scopes either way.
  absl::Duration reconcile_timeout = absl::ZeroDuration();
};

class Controller {
 public:
  // `reconciler` must outlive the controller.
  Controller(std::string name, Reconciler& reconciler, ControllerOptions options);
  ~Controller();  // Stop()

  // Routes `informer`'s events through `predicates` (all must pass) and
  // `map` into the queue. For updates, both the old and the new object are
  // mapped (an object that moved to another owner notifies both).
  void Watch(SharedInformer& informer, MapFunc map, std::vector<Predicate> predicates = {});

  // Starts the workers. Idempotent.
  void Start();
  // Stops taking new work, lets in-flight reconciles finish, joins the workers.
  void Stop();
  // Like Stop(), but first cancels the in-flight reconciles: their next (and
  // current) kube/etcd/Patroni request fails with Cancelled, so they end
  // without another side effect. Used when leadership is lost.
  void Abort();

  const std::string& name() const { return name_; }
  WorkQueue& queue() { return *queue_; }

 private:
  void Enqueue(const std::vector<Request>& requests);
  void Work();
  void ReconcileOne(const std::string& key);

  const std::string name_;
  Reconciler& reconciler_;
  const ControllerOptions options_;
  std::unique_ptr<WorkQueue> queue_;
  std::vector<std::thread> workers_;
  std::atomic<bool> started_{false};
  // Cancelled by Abort(); set by Start() before any worker runs.
  std::unique_ptr<Cancellation> term_;

  CounterFamily* reconcile_total_ = nullptr;
  CounterFamily* reconcile_errors_ = nullptr;
  HistogramFamily* reconcile_time_ = nullptr;
  GaugeFamily* active_workers_ = nullptr;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_CONTROLLER_H_
