// SharedInformer: one list+watch of a resource type feeding a Store and any
// number of event handlers — what client-go's shared informer does. For each
// watched namespace (or all namespaces) a reflector thread lists (paginated),
// replaces that namespace's content in the store, then watches from the
// list's resourceVersion; when the watch says the version expired (410) it
// relists and reports only the difference. Reads go to the store and never
// reach the API server.
//
// Handlers run on the reflector threads, one event at a time (serialized
// across namespaces), and must be quick: enqueue work, do not do it.
// Thread-safety: all public methods may be called concurrently.
#ifndef QUORUM_SRC_RUNTIME_INFORMER_H_
#define QUORUM_SRC_RUNTIME_INFORMER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/kube/client.h"
#include "src/runtime/metrics.h"
#include "src/runtime/store.h"

namespace quorum::runtime {

struct ResourceEventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  std::function<void(const ObjectPtr&)> on_delete;
};

// Drops metadata.managedFields and the last-applied annotation: the bulk of
// many objects, and nothing a controller reads.
void StripManagedFields(Json& object);

struct InformerOptions {
  std::vector<std::string> namespaces;  // empty: all namespaces (and cluster-scoped types)
  std::string label_selector;
  std::string field_selector;
  absl::Duration resync = absl::ZeroDuration();  // >0: redeliver every object as an update
  int64_t page_size = 500;
  // Applied before storing. Watch events arrive without managedFields (cut
  // before parsing); list items carry it, which the default strips.
  std::function<void(Json&)> transform = StripManagedFields;
  absl::Duration initial_backoff = absl::Milliseconds(800);  // list/watch failures
  absl::Duration max_backoff = absl::Seconds(30);
  Registry* metrics = nullptr;
  // Compress the stored objects against one of them (Store, PackedCodec);
  // false for objects whose bytes must go with them when deleted (Secrets).
  bool compress = true;
};

class SharedInformer {
 public:
  SharedInformer(kube::Client& client, kube::GroupVersionResource gvr, InformerOptions options);
  ~SharedInformer();  // Stop()
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // Objects already in the store are delivered to the new handler as adds
  // first, so a late handler misses nothing and sees nothing twice.
  void AddEventHandler(ResourceEventHandler handler);
  void AddIndex(const std::string& name, IndexFunc fn) { store_.AddIndex(name, std::move(fn)); }

  void Start();  // idempotent
  void Stop();   // cancels the reflectors and joins them; idempotent
  // True once every reflector finished its first list.
  bool HasSynced() const;
  bool WaitForSync(absl::Duration timeout, const Cancellation* cancel = nullptr) const;

  const Store& store() const { return store_; }
  const kube::GroupVersionResource& gvr() const { return gvr_; }
  // Lists done so far (first list plus relists), for tests and metrics.
  int64_t list_count() const { return lists_.load(); }

 private:
  void RunReflector(const std::string& ns);
  void RunResync();
  absl::Status ListInto(const std::string& ns, std::string& resource_version);
  ObjectPtr Prepare(Json object, const std::string& api_version, const std::string& kind) const;
  void Dispatch(const ObjectPtr& old_object, const ObjectPtr& new_object);  // add/update/delete

  kube::Client& client_;
  const kube::GroupVersionResource gvr_;
  const InformerOptions options_;
  Store store_;
  Cancellation cancel_;
  std::vector<std::thread> threads_;
  std::atomic<bool> started_{false};
  std::atomic<int64_t> lists_{0};

  mutable absl::Mutex sync_mu_;
  int synced_ ABSL_GUARDED_BY(sync_mu_) = 0;  // reflectors that finished the first list

  absl::Mutex dispatch_mu_;  // serializes handler calls and handler registration
  std::vector<ResourceEventHandler> handlers_ ABSL_GUARDED_BY(dispatch_mu_);

  CounterFamily* events_metric_ = nullptr;
  CounterFamily* lists_metric_ = nullptr;
  GaugeFamily* objects_metric_ = nullptr;
  GaugeFamily* bytes_metric_ = nullptr;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_INFORMER_H_
