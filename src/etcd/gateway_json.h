// Reading answers of etcd's v3 JSON gateway: proto3 JSON leaves out fields
// that are zero and writes 64-bit integers as decimal strings. Shared by the
// gateway's readers in src/etcd (wire.cc, watch_wire.cc, snapshot.cc).
// Pure, thread-safe.
#ifndef QUORUM_SRC_ETCD_GATEWAY_JSON_H_
#define QUORUM_SRC_ETCD_GATEWAY_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/numbers.h"

namespace quorum::etcd::gateway {

// The member `key` of object `j`; null when `j` is no object or lacks it.
inline const nlohmann::json* Field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// `key` as an unsigned integer (a number or a decimal string); 0 when absent
// or unreadable. A negative number is taken bit for bit.
inline uint64_t U64(const nlohmann::json& j, const char* key) {
  const nlohmann::json* f = Field(j, key);
  if (f == nullptr) return 0;
  if (f->is_number_unsigned()) return f->get<uint64_t>();
  if (f->is_number_integer()) return static_cast<uint64_t>(f->get<int64_t>());
  uint64_t v = 0;
  if (f->is_string() && absl::SimpleAtoi(f->get_ref<const std::string&>(), &v)) return v;
  return 0;
}

}  // namespace quorum::etcd::gateway

#endif  // QUORUM_SRC_ETCD_GATEWAY_JSON_H_
