#include "src/runtime/cache.h"

#include <spdlog/spdlog.h>

#include "absl/time/clock.h"

namespace quorum::runtime {

std::string ResourceKey(const kube::GroupVersionResource& gvr) {
  return gvr.group + "/" + gvr.version + "/" + gvr.resource;
}

Cache::Cache(kube::Client& client, CacheOptions options)
    : client_(client), options_(std::move(options)) {}

Cache::~Cache() { Stop(); }

SharedInformer& Cache::Informer(const kube::GroupVersionResource& gvr, bool cluster_scoped) {
  absl::MutexLock lock(&mu_);
  auto& slot = informers_[ResourceKey(gvr)];
  if (!slot) {
    InformerOptions o;
    if (!cluster_scoped) o.namespaces = options_.namespaces;
    o.resync = options_.resync;
    o.metrics = options_.metrics;
    if (const ResourceScope* scope = ScopeOf(gvr)) {
      o.label_selector = scope->label_selector;
      o.compress = !scope->sensitive;
      if (scope->transform) {
        o.transform = [t = scope->transform](Json& object) {
          StripManagedFields(object);
          t(object);
        };
      }
    }
    slot = std::make_unique<SharedInformer>(client_, gvr, std::move(o));
    if (started_) slot->Start();
  }
  return *slot;
}

void Cache::Start() {
  absl::MutexLock lock(&mu_);
  started_ = true;
  for (auto& [key, informer] : informers_) informer->Start();
}

void Cache::Stop() {
  absl::MutexLock lock(&mu_);
  for (auto& [key, informer] : informers_) informer->Stop();
}

bool Cache::HasSynced() const {
  absl::MutexLock lock(&mu_);
  if (!started_) return false;
  for (const auto& [key, informer] : informers_) {
    if (!informer->HasSynced()) return false;
  }
  return true;
}

bool Cache::WaitForSync(absl::Duration timeout, const Cancellation* cancel) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (!HasSynced()) {
    if (absl::Now() >= deadline || (cancel != nullptr && cancel->cancelled())) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

const SharedInformer* Cache::Find(const kube::GroupVersionResource& gvr) const {
  absl::MutexLock lock(&mu_);
  auto it = informers_.find(ResourceKey(gvr));
  return it == informers_.end() ? nullptr : it->second.get();
}

const ResourceScope* Cache::ScopeOf(const kube::GroupVersionResource& gvr) const {
  auto it = options_.by_resource.find(ResourceKey(gvr));
  return it == options_.by_resource.end() ? nullptr : &it->second;
}

ObjectPtr Cache::Get(const kube::GroupVersionResource& gvr, std::string_view ns,
                     std::string_view name) const {
  const SharedInformer* inf = Find(gvr);
  if (inf == nullptr) return nullptr;
  if (ObjectPtr hit = inf->store().Get(ObjectKey(ns, name))) return hit;
  const ResourceScope* scope = ScopeOf(gvr);
  if (scope == nullptr || !scope->read_through || name.empty()) return nullptr;
  absl::StatusOr<Json> live = client_.Get(gvr, ns, name);
  if (!live.ok()) {
    if (!absl::IsNotFound(live.status())) {
      spdlog::warn("cache: reading {} {}/{} from the API server: {}", gvr.resource, ns, name,
                   std::string(live.status().message()));
    }
    return nullptr;
  }
  StripManagedFields(*live);
  if (scope->transform) scope->transform(*live);
  return ObjectPtr(new Json(*std::move(live)));
}

std::vector<ObjectPtr> Cache::List(const kube::GroupVersionResource& gvr,
                                   std::string_view ns) const {
  const SharedInformer* inf = Find(gvr);
  if (inf == nullptr) return {};
  return ns.empty() ? inf->store().List() : inf->store().ListNamespace(std::string(ns));
}

std::vector<ObjectPtr> Cache::ByIndex(const kube::GroupVersionResource& gvr,
                                      const std::string& index, const std::string& value) const {
  const SharedInformer* inf = Find(gvr);
  return inf == nullptr ? std::vector<ObjectPtr>{} : inf->store().ByIndex(index, value);
}

std::vector<ObjectPtr> Cache::ByInstance(const kube::GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view instance) const {
  return ByIndex(gvr, kInstanceIndex, ObjectKey(ns, instance));
}

std::vector<std::pair<std::string, std::string>> Cache::IndexedValues(
    const kube::GroupVersionResource& gvr, const std::string& index, const std::string& value,
    const std::string& of_index) const {
  const SharedInformer* inf = Find(gvr);
  return inf == nullptr ? std::vector<std::pair<std::string, std::string>>{}
                        : inf->store().IndexedValues(index, value, of_index);
}

}  // namespace quorum::runtime
