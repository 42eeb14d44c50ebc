#include "src/runtime/informer.h"

#include <spdlog/spdlog.h>

#include <random>

#include "src/base/json_access.h"
#include "src/kube/errors.h"
#include "src/kube/watch.h"

namespace quorum::runtime {
namespace {

std::string ResourceLabel(const kube::GroupVersionResource& gvr) {
  return gvr.group.empty() ? gvr.resource : gvr.resource + "." + gvr.group;
}

}  // namespace

void StripManagedFields(Json& object) {
  if (!object.is_object()) return;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  meta->erase("managedFields");
  auto ann = meta->find("annotations");
  if (ann != meta->end() && ann->is_object()) {
    ann->erase("kubectl.kubernetes.io/last-applied-configuration");
    if (ann->empty()) meta->erase(ann);
  }
}

SharedInformer::SharedInformer(kube::Client& client, kube::GroupVersionResource gvr,
                               InformerOptions options)
    : client_(client),
      gvr_(std::move(gvr)),
      options_(std::move(options)),
      store_(options_.compress) {
  if (options_.metrics != nullptr) {
    events_metric_ = &options_.metrics->Counter("informer_events_total",
                                                "Watch events received, by resource and type",
                                                {"resource", "type"});
    lists_metric_ = &options_.metrics->Counter(
        "informer_lists_total", "Full lists (first list and relists), by resource", {"resource"});
    objects_metric_ = &options_.metrics->Gauge("informer_cached_objects",
                                               "Objects in the cache, by resource", {"resource"});
    bytes_metric_ = &options_.metrics->Gauge(
        "informer_cached_bytes", "Bytes of the packed objects in the cache, by resource",
        {"resource"});
  }
}

SharedInformer::~SharedInformer() { Stop(); }

void SharedInformer::AddEventHandler(ResourceEventHandler handler) {
  absl::MutexLock lock(&dispatch_mu_);
  if (handler.on_add) {
    for (const ObjectPtr& obj : store_.List()) handler.on_add(obj);
  }
  handlers_.push_back(std::move(handler));
}

void SharedInformer::Start() {
  if (started_.exchange(true)) return;
  std::vector<std::string> namespaces = options_.namespaces;
  if (namespaces.empty()) namespaces.push_back("");
  for (const std::string& ns : namespaces) {
    threads_.emplace_back([this, ns] { RunReflector(ns); });
  }
  if (options_.resync > absl::ZeroDuration()) threads_.emplace_back([this] { RunResync(); });
}

void SharedInformer::Stop() {
  cancel_.Cancel();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

bool SharedInformer::HasSynced() const {
  absl::MutexLock lock(&sync_mu_);
  const size_t want = options_.namespaces.empty() ? 1 : options_.namespaces.size();
  return started_.load() && static_cast<size_t>(synced_) >= want;
}

bool SharedInformer::WaitForSync(absl::Duration timeout, const Cancellation* cancel) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (!HasSynced()) {
    if (absl::Now() >= deadline || (cancel != nullptr && cancel->cancelled())) return false;
    if (cancel != nullptr) {
      if (cancel->WaitFor(absl::Milliseconds(20))) return false;
    } else {
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
  return true;
}

ObjectPtr SharedInformer::Prepare(Json object, const std::string& api_version,
                                  const std::string& kind) const {
  // Items of a list carry no apiVersion/kind; watch events do.
  if (!object.contains("apiVersion") && !api_version.empty()) object["apiVersion"] = api_version;
  if (!object.contains("kind") && !kind.empty()) object["kind"] = kind;
  if (options_.transform) options_.transform(object);
  return ObjectPtr(new Json(std::move(object)));  // see Store::Unpack
}

void SharedInformer::Dispatch(const ObjectPtr& old_object, const ObjectPtr& new_object) {
  absl::MutexLock lock(&dispatch_mu_);
  for (const ResourceEventHandler& h : handlers_) {
    if (old_object == nullptr && new_object != nullptr) {
      if (h.on_add) h.on_add(new_object);
    } else if (old_object != nullptr && new_object != nullptr) {
      if (h.on_update) h.on_update(old_object, new_object);
    } else if (old_object != nullptr) {
      if (h.on_delete) h.on_delete(old_object);
    }
  }
}

absl::Status SharedInformer::ListInto(const std::string& ns, std::string& resource_version) {
  kube::ListOptions opts{.label_selector = options_.label_selector,
                         .field_selector = options_.field_selector,
                         .limit = options_.page_size};
  absl::StatusOr<Json> list = client_.ListAll(gvr_, ns, opts);
  if (!list.ok()) return list.status();
  const std::string api_version = list->value("apiVersion", "");
  std::string kind = list->value("kind", "");
  if (kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0)
    kind.resize(kind.size() - 4);
  std::vector<ObjectPtr> objects;
  if (auto items = list->find("items"); items != list->end() && items->is_array()) {
    objects.reserve(items->size());
    for (Json& item : *items) objects.push_back(Prepare(std::move(item), api_version, kind));
  }
  resource_version = json_access::Str(json_access::At(*list, {"metadata", "resourceVersion"}));
  ReplaceDelta delta = store_.Replace(ns, std::move(objects));
  for (const ObjectPtr& o : delta.added) Dispatch(nullptr, o);
  for (const auto& [old_o, new_o] : delta.updated) Dispatch(old_o, new_o);
  for (const ObjectPtr& o : delta.deleted) Dispatch(o, nullptr);
  ++lists_;
  if (lists_metric_ != nullptr) lists_metric_->Inc({ResourceLabel(gvr_)});
  if (objects_metric_ != nullptr) objects_metric_->Set({ResourceLabel(gvr_)}, store_.size());
  if (bytes_metric_ != nullptr) bytes_metric_->Set({ResourceLabel(gvr_)}, store_.packed_bytes());
  return absl::OkStatus();
}

void SharedInformer::RunReflector(const std::string& ns) {
  std::mt19937_64 rng{std::random_device{}()};
  absl::Duration backoff = absl::ZeroDuration();
  bool synced = false;
  const std::string resource = ResourceLabel(gvr_);
  while (!cancel_.cancelled()) {
    std::string rv;
    absl::Status listed = ListInto(ns, rv);
    if (!listed.ok()) {
      backoff = kube::NextBackoff(backoff, options_.initial_backoff, options_.max_backoff);
      const absl::Duration wait =
          kube::Jittered(backoff, std::uniform_real_distribution<double>(0, 1)(rng));
      spdlog::warn("informer {}: list in namespace \"{}\" failed, retrying in {}: {}", resource, ns,
                   absl::FormatDuration(wait), std::string(listed.message()));
      if (cancel_.WaitFor(wait)) break;
      continue;
    }
    backoff = absl::ZeroDuration();
    if (synced) {
      spdlog::info("informer {}: relisted namespace \"{}\" at resourceVersion {}", resource, ns,
                   rv);
    }
    if (!synced) {
      synced = true;
      absl::MutexLock lock(&sync_mu_);
      ++synced_;
    }
    kube::Watcher::Options wopts;
    wopts.list = {.label_selector = options_.label_selector,
                  .field_selector = options_.field_selector,
                  .resource_version = rv};
    wopts.drop_managed_fields = true;  // every transform starts with StripManagedFields
    wopts.initial_backoff = options_.initial_backoff;
    wopts.max_backoff = options_.max_backoff;
    wopts.on_error = [&](const absl::Status& s, absl::Duration wait) {
      spdlog::warn("informer {}: watch in namespace \"{}\" failed, retrying in {}: {}", resource,
                   ns, absl::FormatDuration(wait), std::string(s.message()));
    };
    kube::Watcher watcher(client_, gvr_, ns, std::move(wopts));
    absl::Status s = watcher.Run(
        [&](kube::WatchEvent& ev) {
          if (events_metric_ != nullptr) {
            events_metric_->Inc({resource, ev.type == kube::WatchEventType::kAdded ? "added"
                                           : ev.type == kube::WatchEventType::kModified
                                               ? "modified"
                                               : "deleted"});
          }
          ObjectPtr obj = Prepare(std::move(ev.object), "", "");
          if (ev.type == kube::WatchEventType::kDeleted) {
            ObjectPtr old = store_.Delete(ObjectKey(*obj));
            Dispatch(old ? old : obj, nullptr);
          } else {
            ObjectPtr old = store_.Upsert(obj);
            Dispatch(old, obj);
          }
          if (objects_metric_ != nullptr) objects_metric_->Set({resource}, store_.size());
          if (bytes_metric_ != nullptr) bytes_metric_->Set({resource}, store_.packed_bytes());
          return true;
        },
        cancel_);
    if (kube::IsGone(s)) {
      spdlog::info("informer {}: resourceVersion expired in namespace \"{}\", relisting", resource,
                   ns);
      continue;
    }
    if (absl::IsCancelled(s)) break;
  }
}

void SharedInformer::RunResync() {
  while (!cancel_.WaitFor(options_.resync)) {
    if (!HasSynced()) continue;
    for (const ObjectPtr& obj : store_.List()) Dispatch(obj, obj);
  }
}

}  // namespace quorum::runtime
