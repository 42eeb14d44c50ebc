#include "src/runtime/cache.h"

#include "absl/time/clock.h"

namespace quorum::runtime {
namespace {

std::string KeyOf(const kube::GroupVersionResource& gvr) {
  return gvr.group + "/" + gvr.version + "/" + gvr.resource;
}

}  // namespace

Cache::Cache(kube::Client& client, CacheOptions options)
    : client_(client), options_(std::move(options)) {}

Cache::~Cache() { Stop(); }

SharedInformer& Cache::Informer(const kube::GroupVersionResource& gvr, bool cluster_scoped) {
  absl::MutexLock lock(&mu_);
  auto& slot = informers_[KeyOf(gvr)];
  if (!slot) {
    InformerOptions o;
    if (!cluster_scoped) o.namespaces = options_.namespaces;
    o.resync = options_.resync;
    o.metrics = options_.metrics;
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
  auto it = informers_.find(KeyOf(gvr));
  return it == informers_.end() ? nullptr : it->second.get();
}

ObjectPtr Cache::Get(const kube::GroupVersionResource& gvr, std::string_view ns,
                     std::string_view name) const {
  const SharedInformer* inf = Find(gvr);
  return inf == nullptr ? nullptr : inf->store().Get(ObjectKey(ns, name));
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

}  // namespace quorum::runtime
