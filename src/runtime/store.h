// Store: the in-memory cache behind an informer — objects by key
// ("namespace/name", or "name" when cluster-scoped) with indexes.
//
// Memory: objects are kept packed (MessagePack, about the size of their
// compact JSON, then compressed against one earlier object of the store:
// packed_codec.h) rather than as a JSON tree, which costs several times the
// JSON size; a read unpacks the object into an immutable snapshot
// (ObjectPtr), so readers never see later changes and never share mutable
// state. Reads by key or index unpack only what they return, and an object
// is unpacked once while any reader still holds it (a weak reference to the
// last snapshot is kept): a reconcile that reads the same object several
// times, or several workers reading it at once, share one decode.
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_RUNTIME_STORE_H_
#define QUORUM_SRC_RUNTIME_STORE_H_

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"
#include "src/runtime/packed_codec.h"

namespace quorum::runtime {

using kube::Json;
using ObjectPtr = std::shared_ptr<const Json>;

// The values under which an object is indexed (none: not in the index).
using IndexFunc = std::function<std::vector<std::string>(const Json&)>;

// "namespace/name", or "name" for cluster-scoped objects.
std::string ObjectKey(const Json& object);
std::string ObjectKey(std::string_view ns, std::string_view name);

// Index functions every informer offers.
inline constexpr char kNamespaceIndex[] = "namespace";
// values: "<kind>/<name>/<uid>" of the controller owner reference (none without one)
inline constexpr char kControllerIndex[] = "controller";
// values: "namespace/<app.kubernetes.io/instance label>" — the objects our
// builders make for one cluster (pods, PVCs) without listing a namespace.
inline constexpr char kInstanceIndex[] = "instance";
inline constexpr char kInstanceLabel[] = "app.kubernetes.io/instance";
std::vector<std::string> IndexByNamespace(const Json& object);
std::vector<std::string> IndexByController(const Json& object);
std::vector<std::string> IndexByInstanceLabel(const Json& object);

// What changed when a whole namespace's content was replaced (relist).
struct ReplaceDelta {
  std::vector<ObjectPtr> added;
  std::vector<std::pair<ObjectPtr, ObjectPtr>> updated;  // {old, new}, resourceVersion differs
  std::vector<ObjectPtr> deleted;
};

// While a ReadScope lives on a thread, every object that thread reads from
// any Store stays decoded until the scope ends, so reading the same object
// again (one reconcile's phases each reading the StatefulSet) shares the
// first decode instead of unpacking it again. A reconcile is one scope
// (Controller::ReconcileOne); scopes nest (the inner one holds its own reads).
// Not copyable; lives on one thread.
class ReadScope {
 public:
  ReadScope();
  ~ReadScope();
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;

  // Keeps `object` decoded while the innermost scope of this thread lives.
  static void Hold(const ObjectPtr& object);

 private:
  std::vector<ObjectPtr> held_;
  ReadScope* const outer_;
};

class Store {
 public:
  // `compress`: see PackedCodec (false keeps no copy of any object's bytes
  // beyond its own entry).
  explicit Store(bool compress = true);

  // Adds an index; objects already stored are indexed at once.
  void AddIndex(const std::string& name, IndexFunc fn);

  // Inserts or replaces; returns the previous object (nullptr if none).
  ObjectPtr Upsert(ObjectPtr object);
  // Removes by key; returns the removed object (nullptr if absent).
  ObjectPtr Delete(const std::string& key);
  // Makes the objects of namespace `ns` ("" = all namespaces) exactly
  // `objects`, and reports the difference.
  ReplaceDelta Replace(const std::string& ns, std::vector<ObjectPtr> objects);

  ObjectPtr Get(const std::string& key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<ObjectPtr> ListNamespace(const std::string& ns) const;
  // Objects whose index `index` yields `value`; empty for an unknown index.
  std::vector<ObjectPtr> ByIndex(const std::string& index, const std::string& value) const;
  // {key, value} of index `of_index` for each object that ByIndex(index,
  // value) returns, without unpacking the objects (an object with no value
  // in `of_index` is left out).
  std::vector<std::pair<std::string, std::string>> IndexedValues(const std::string& index,
                                                                 const std::string& value,
                                                                 const std::string& of_index) const;
  size_t size() const;
  // Bytes of the packed objects and their keys (what the cache holds, less
  // the allocator's and the indexes' overhead).
  size_t packed_bytes() const;

 private:
  // Bookkeeping is kept small (it is per object, thousands of them): the
  // indexes hold views of the keys in items_, and an entry points at the
  // index name and value strings it is filed under instead of copying them.
  struct Entry {
    std::string packed;  // MessagePack of the object, encoded by codec_
    std::string resource_version;
    // {index name, value}: keys of indexes_ and of its value map, each at most once.
    std::vector<std::pair<const std::string*, const std::string*>> indexed;
    mutable std::weak_ptr<const Json> decoded;  // the last snapshot, while someone holds it
  };
  ObjectPtr Unpack(const Entry& e) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Unpack, reusing a snapshot still held by a reader.
  ObjectPtr Snapshot(const Entry& e) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // `key` is the key string of the entry's node in items_ (the indexes view it).
  void IndexLocked(const std::string& key, const Json& object, Entry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UnindexLocked(std::string_view key, const Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ObjectPtr UpsertLocked(ObjectPtr object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ObjectPtr DeleteLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, Entry, std::less<>> items_ ABSL_GUARDED_BY(mu_);
  size_t packed_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  PackedCodec codec_ ABSL_GUARDED_BY(mu_);  // set in the constructor
  // Reused for each object's MessagePack and decompressed bytes (a fresh
  // multi-KiB buffer per event would make glibc consolidate its fast bins).
  std::string pack_buffer_ ABSL_GUARDED_BY(mu_);
  mutable std::string unpack_buffer_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, IndexFunc> index_funcs_ ABSL_GUARDED_BY(mu_);
  // index name -> value -> keys (views of the keys of items_)
  std::map<std::string, std::map<std::string, std::set<std::string_view>>> indexes_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_STORE_H_
