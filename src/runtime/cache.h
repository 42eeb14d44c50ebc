// Cache: the shared informers of a process, one per resource type, created
// on first use and shared by every controller — controller-runtime's Cache.
// Reads (Get, List, ByIndex) come from memory and never reach the API
// server. Namespaced types are watched in the configured namespaces only
// (all when none are configured); cluster-scoped types are watched whole.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_RUNTIME_CACHE_H_
#define QUORUM_SRC_RUNTIME_CACHE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"
#include "src/runtime/informer.h"

namespace quorum::runtime {

struct CacheOptions {
  std::vector<std::string> namespaces;  // empty: all namespaces
  absl::Duration resync = absl::ZeroDuration();
  Registry* metrics = nullptr;
};

class Cache {
 public:
  Cache(kube::Client& client, CacheOptions options);
  ~Cache();  // Stop()

  // The informer for `gvr`, created on first call (and started at once if
  // the cache is already started). `cluster_scoped` types ignore the
  // namespace restriction. The reference stays valid for the cache's life.
  SharedInformer& Informer(const kube::GroupVersionResource& gvr, bool cluster_scoped = false);

  void Start();  // starts every informer, present and future
  void Stop();
  bool HasSynced() const;  // every informer synced
  bool WaitForSync(absl::Duration timeout, const Cancellation* cancel = nullptr) const;

  // Reads; nullptr / empty when not cached (or no informer for gvr yet).
  ObjectPtr Get(const kube::GroupVersionResource& gvr, std::string_view ns,
                std::string_view name) const;
  std::vector<ObjectPtr> List(const kube::GroupVersionResource& gvr,
                              std::string_view ns = "") const;
  std::vector<ObjectPtr> ByIndex(const kube::GroupVersionResource& gvr, const std::string& index,
                                 const std::string& value) const;

  const CacheOptions& options() const { return options_; }

 private:
  const SharedInformer* Find(const kube::GroupVersionResource& gvr) const;

  kube::Client& client_;
  const CacheOptions options_;
  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::unique_ptr<SharedInformer>> informers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_CACHE_H_
