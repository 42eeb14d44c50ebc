#include "src/runtime/store.h"

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::runtime {
namespace {

// Member `name` of `object`, or nullptr (not an object, or no such member).
const Json* Member(const Json* object, const char* name) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(name);
  return it == object->end() ? nullptr : &*it;
}

// A string value, or "" for anything else.
std::string_view StringOf(const Json* value) {
  return value != nullptr && value->is_string()
             ? std::string_view(value->get_ref<const std::string&>())
             : std::string_view();
}

std::string StringAt(const Json& object, const char* field) {
  return std::string(StringOf(Member(Member(&object, "metadata"), field)));
}

// Gives back a scratch buffer that one large object grew.
void KeepSmall(std::string& buffer) {
  if (buffer.capacity() > (64 << 10)) std::string().swap(buffer);
}

}  // namespace

std::string ObjectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  return absl::StrCat(Absl(ns), "/", Absl(name));
}

std::string ObjectKey(const Json& object) {
  return ObjectKey(StringAt(object, "namespace"), StringAt(object, "name"));
}

std::vector<std::string> IndexByNamespace(const Json& object) {
  return {StringAt(object, "namespace")};
}

std::vector<std::string> IndexByController(const Json& object) {
  const Json* refs = Member(Member(&object, "metadata"), "ownerReferences");
  if (refs == nullptr || !refs->is_array()) return {};
  for (const Json& ref : *refs) {
    const Json* controller = Member(&ref, "controller");
    if (controller == nullptr || !controller->is_boolean() || !controller->get<bool>()) continue;
    return {absl::StrCat(Absl(StringOf(Member(&ref, "kind"))), "/",
                         Absl(StringOf(Member(&ref, "name"))), "/",
                         Absl(StringOf(Member(&ref, "uid"))))};
  }
  return {};
}

std::vector<std::string> IndexByInstanceLabel(const Json& object) {
  const Json* instance = Member(Member(Member(&object, "metadata"), "labels"), kInstanceLabel);
  if (instance == nullptr || !instance->is_string()) return {};
  return {ObjectKey(StringAt(object, "namespace"), instance->get_ref<const std::string&>())};
}

namespace {
thread_local ReadScope* current_read_scope = nullptr;
}  // namespace

ReadScope::ReadScope() : outer_(current_read_scope) { current_read_scope = this; }

ReadScope::~ReadScope() { current_read_scope = outer_; }

void ReadScope::Hold(const ObjectPtr& object) {
  if (current_read_scope != nullptr && object != nullptr) {
    current_read_scope->held_.push_back(object);
  }
}

Store::Store(bool compress) : codec_(compress) {
  index_funcs_[kNamespaceIndex] = IndexByNamespace;
  index_funcs_[kControllerIndex] = IndexByController;
  index_funcs_[kInstanceIndex] = IndexByInstanceLabel;
}

ObjectPtr Store::Unpack(const Entry& e) const {
  const std::optional<std::string_view> plain = codec_.Decode(e.packed, unpack_buffer_);
  // Not make_shared: the weak reference in the entry would keep the whole
  // block allocated; this way only the small control block outlives readers.
  // Bytes that do not decode (never: the codec made them) read as a
  // discarded value, as a malformed MessagePack would.
  ObjectPtr object(new Json(plain ? Json::from_msgpack(*plain, /*strict=*/true,
                                                       /*allow_exceptions=*/false)
                                  : Json(Json::value_t::discarded)));
  KeepSmall(unpack_buffer_);
  return object;
}

ObjectPtr Store::Snapshot(const Entry& e) const {
  if (ObjectPtr held = e.decoded.lock()) {
    ReadScope::Hold(held);  // its other holders may let go before this reader reads it again
    return held;
  }
  ObjectPtr fresh = Unpack(e);
  e.decoded = fresh;
  ReadScope::Hold(fresh);
  return fresh;
}

void Store::AddIndex(const std::string& name, IndexFunc fn) {
  absl::MutexLock lock(&mu_);
  index_funcs_[name] = std::move(fn);
  auto idx = indexes_.find(name);
  if (idx != indexes_.end()) {
    // Forget the old index's entries while their name and value strings live.
    for (auto& [key, entry] : items_) {
      std::erase_if(entry.indexed, [&](const auto& p) { return p.first == &idx->first; });
    }
    indexes_.erase(idx);
  }
  idx = indexes_.try_emplace(name).first;
  for (auto& [key, entry] : items_) {
    const ObjectPtr obj = Snapshot(entry);
    for (std::string& v : index_funcs_[name](*obj)) {
      auto bucket = idx->second.try_emplace(std::move(v)).first;
      if (bucket->second.insert(key).second)
        entry.indexed.emplace_back(&idx->first, &bucket->first);
    }
  }
}

void Store::IndexLocked(const std::string& key, const Json& object, Entry& entry) {
  for (const auto& [name, fn] : index_funcs_) {
    auto idx = indexes_.try_emplace(name).first;
    for (std::string& v : fn(object)) {
      auto bucket = idx->second.try_emplace(std::move(v)).first;
      if (bucket->second.insert(key).second)
        entry.indexed.emplace_back(&idx->first, &bucket->first);
    }
  }
}

void Store::UnindexLocked(std::string_view key, const Entry& entry) {
  for (const auto& [name, value] : entry.indexed) {
    auto idx = indexes_.find(*name);
    if (idx == indexes_.end()) continue;
    auto it = idx->second.find(*value);
    if (it == idx->second.end()) continue;
    it->second.erase(key);
    if (it->second.empty()) idx->second.erase(it);  // *value dies here: not read again
  }
}

ObjectPtr Store::UpsertLocked(ObjectPtr object) {
  Entry entry;
  pack_buffer_.clear();
  Json::to_msgpack(*object, pack_buffer_);
  entry.packed = codec_.Encode(pack_buffer_);
  KeepSmall(pack_buffer_);
  entry.resource_version = StringAt(*object, "resourceVersion");
  entry.decoded = object;  // the caller's object is the snapshot while anyone holds it
  ObjectPtr old;
  auto [it, added] = items_.try_emplace(ObjectKey(*object));
  if (!added) {
    old = Snapshot(it->second);
    UnindexLocked(it->first, it->second);  // before indexing the new entry: values may coincide
    packed_bytes_ -= it->second.packed.size() + it->second.resource_version.size();
  } else {
    packed_bytes_ += it->first.size();
  }
  packed_bytes_ += entry.packed.size() + entry.resource_version.size();
  IndexLocked(it->first, *object, entry);
  it->second = std::move(entry);
  return old;
}

ObjectPtr Store::DeleteLocked(const std::string& key) {
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  ObjectPtr old = Snapshot(it->second);
  UnindexLocked(key, it->second);
  packed_bytes_ -= it->first.size() + it->second.packed.size() + it->second.resource_version.size();
  items_.erase(it);
  return old;
}

ObjectPtr Store::Upsert(ObjectPtr object) {
  absl::MutexLock lock(&mu_);
  return UpsertLocked(std::move(object));
}

ObjectPtr Store::Delete(const std::string& key) {
  absl::MutexLock lock(&mu_);
  return DeleteLocked(key);
}

ReplaceDelta Store::Replace(const std::string& ns, std::vector<ObjectPtr> objects) {
  ReplaceDelta delta;
  absl::MutexLock lock(&mu_);
  std::set<std::string> keep;
  for (ObjectPtr& obj : objects) {
    const std::string key = ObjectKey(*obj);
    keep.insert(key);
    auto it = items_.find(key);
    if (it == items_.end()) {
      delta.added.push_back(obj);
      UpsertLocked(std::move(obj));
    } else if (it->second.resource_version != StringAt(*obj, "resourceVersion")) {
      ObjectPtr new_obj = obj;
      delta.updated.emplace_back(UpsertLocked(std::move(obj)), std::move(new_obj));
    }
  }
  std::vector<std::string> gone;
  for (const auto& [key, entry] : items_) {
    // A namespaced key is "namespace/name".
    const size_t slash = key.find('/');
    const std::string_view key_ns =
        slash == std::string::npos ? std::string_view() : std::string_view(key).substr(0, slash);
    if (keep.count(key) || (!ns.empty() && key_ns != ns)) continue;
    gone.push_back(key);
  }
  for (const std::string& key : gone) delta.deleted.push_back(DeleteLocked(key));
  return delta;
}

ObjectPtr Store::Get(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : Snapshot(it->second);
}

std::vector<ObjectPtr> Store::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, entry] : items_) out.push_back(Snapshot(entry));
  return out;
}

std::vector<ObjectPtr> Store::ListNamespace(const std::string& ns) const {
  return ByIndex(kNamespaceIndex, ns);
}

std::vector<ObjectPtr> Store::ByIndex(const std::string& index, const std::string& value) const {
  absl::MutexLock lock(&mu_);
  std::vector<ObjectPtr> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto it = idx->second.find(value);
  if (it == idx->second.end()) return out;
  for (std::string_view key : it->second) {
    if (auto e = items_.find(key); e != items_.end()) out.push_back(Snapshot(e->second));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Store::IndexedValues(
    const std::string& index, const std::string& value, const std::string& of_index) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto it = idx->second.find(value);
  if (it == idx->second.end()) return out;
  for (std::string_view key : it->second) {
    auto e = items_.find(key);
    if (e == items_.end()) continue;
    for (const auto& [name, v] : e->second.indexed) {
      if (*name == of_index) out.emplace_back(e->first, *v);
    }
  }
  return out;
}

size_t Store::size() const {
  absl::MutexLock lock(&mu_);
  return items_.size();
}

size_t Store::packed_bytes() const {
  absl::MutexLock lock(&mu_);
  return packed_bytes_;
}

}  // namespace quorum::runtime
