// The one helper for reading JSON that never throws, whatever an object
// holds: for the admission checks (which must read objects of any shape) and
// for the Kubernetes objects the controllers observe (pods, StatefulSets,
// Secrets, Nodes). Quorum's own resources are read through their typed forms
// (api/*_types.h), never through this.
//
// Two styles over the same rules (a missing member, a non-object on the way
// or a wrong type reads as absent):
//   pointers: Child(&o, "spec"), Path(&o, {"spec", "storage"}), Str(&o, "name")
//             (null / "" when absent or null) — for code that branches on
//             presence;
//   references: At(pod, {"status", "podIP"}) (a null value when absent),
//             Str(value) ("" unless a string) — for one-line reads.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_BASE_JSON_ACCESS_H_
#define QUORUM_SRC_BASE_JSON_ACCESS_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace quorum::json_access {

// o[key] when `o` is an object holding a non-null value there, else null.
inline const nlohmann::json* Child(const nlohmann::json* o, std::string_view key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  if (it == o->end() || it->is_null()) return nullptr;
  return &*it;
}

// o[k1][k2]...; null as soon as one is missing.
inline const nlohmann::json* Path(const nlohmann::json* o,
                                  std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) o = Child(o, k);
  return o;
}

// A string member; "" when absent or not a string (an empty Secret name
// means "not set").
inline std::string Str(const nlohmann::json* o, std::string_view key) {
  const nlohmann::json* v = Child(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// j[k1][k2]... by reference; a (static) null value as soon as one is missing.
inline const nlohmann::json& At(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  static const nlohmann::json kNull;
  const nlohmann::json* cur = &j;
  for (const char* key : keys) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

// The string `j` holds; "" when it holds anything else.
inline std::string Str(const nlohmann::json& j) {
  return j.is_string() ? j.get<std::string>() : "";
}

// An integer that fits int64; nullopt for anything else.
inline std::optional<int64_t> Int(const nlohmann::json* v) {
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  return v->get<int64_t>();
}

// Compact JSON text; invalid UTF-8 is replaced, never thrown about.
inline std::string Dump(const nlohmann::json& v) {
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A value as the user wrote it: strings bare, anything else as JSON.
inline std::string Display(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : Dump(v);
}

}  // namespace quorum::json_access

#endif  // QUORUM_SRC_BASE_JSON_ACCESS_H_
