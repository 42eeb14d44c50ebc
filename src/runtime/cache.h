// Cache: the shared informers of a process, one per resource type, created
// on first use and shared by every controller — controller-runtime's Cache.
// Reads (Get, List, ByIndex) come from memory and never reach the API
// server, except Get of a read-through resource (below). Namespaced types are
// watched in the configured namespaces only (all when none are configured);
// cluster-scoped types are watched whole.
//
// Scopes (CacheOptions::by_resource) bound what is held per type: a label
// selector (only the objects our builders label — owned objects, our pods —
// are listed and watched, so unrelated ConfigMaps or Secrets in the cluster
// cost nothing) and a transform that drops fields no controller reads. A
// read-through type also answers Get for objects outside its selector with a
// GET to the API server (e.g. a user's TLS Secret named in a spec), which is
// not cached and triggers no events.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_RUNTIME_CACHE_H_
#define QUORUM_SRC_RUNTIME_CACHE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"
#include "src/runtime/informer.h"

namespace quorum::runtime {

// How one resource type is cached.
struct ResourceScope {
  std::string label_selector;            // empty: every object
  std::function<void(Json&)> transform;  // after StripManagedFields; may be empty
  bool read_through = false;             // Get misses ask the API server (uncached)
  // Kept uncompressed: no copy of a deleted object's bytes stays behind as a
  // compression dictionary (InformerOptions::compress).
  bool sensitive = false;
};

// "group/version/resource", the key of CacheOptions::by_resource.
std::string ResourceKey(const kube::GroupVersionResource& gvr);

struct CacheOptions {
  std::vector<std::string> namespaces;  // empty: all namespaces
  absl::Duration resync = absl::ZeroDuration();
  Registry* metrics = nullptr;
  std::map<std::string, ResourceScope> by_resource;  // by ResourceKey; absent: whole type
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

  // Reads; nullptr / empty when not cached (or no informer for gvr yet). Get
  // of a read-through type that misses the cache reads the API server
  // (nullptr when absent or unreadable).
  ObjectPtr Get(const kube::GroupVersionResource& gvr, std::string_view ns,
                std::string_view name) const;
  std::vector<ObjectPtr> List(const kube::GroupVersionResource& gvr,
                              std::string_view ns = "") const;
  std::vector<ObjectPtr> ByIndex(const kube::GroupVersionResource& gvr, const std::string& index,
                                 const std::string& value) const;
  // The objects of one cluster instance: ByIndex(kInstanceIndex, "ns/instance").
  std::vector<ObjectPtr> ByInstance(const kube::GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view instance) const;

  // Store::IndexedValues of gvr's informer: {key, value of `of_index`} of
  // the objects ByIndex(gvr, index, value) would return, none unpacked.
  std::vector<std::pair<std::string, std::string>> IndexedValues(
      const kube::GroupVersionResource& gvr, const std::string& index, const std::string& value,
      const std::string& of_index) const;

  const CacheOptions& options() const { return options_; }

 private:
  const SharedInformer* Find(const kube::GroupVersionResource& gvr) const;
  const ResourceScope* ScopeOf(const kube::GroupVersionResource& gvr) const;

  kube::Client& client_;
  const CacheOptions options_;
  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::unique_ptr<SharedInformer>> informers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_CACHE_H_
