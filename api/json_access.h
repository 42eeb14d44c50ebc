// Null-safe reads of optional JSON members, for code that must never throw
// whatever an object holds (validation, defaulting). Internal to api/.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_JSON_ACCESS_H_
#define QUORUM_API_JSON_ACCESS_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace quorum::api::internal {

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

}  // namespace quorum::api::internal

#endif  // QUORUM_API_JSON_ACCESS_H_
