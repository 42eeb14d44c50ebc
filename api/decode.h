// Decoding JSON into typed API structs with errors that name the field path
// ("spec.security.tls.peerSecret: want a string, got 3"). A Decoder collects
// every error and never throws; absent and null members leave the target
// unchanged, so defaults are whatever the struct holds. Internal to api/.
//
// Thread-safety: a Decoder is used by one thread; its functions are pure.
#ifndef QUORUM_API_DECODE_H_
#define QUORUM_API_DECODE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"

namespace quorum::api::internal {

class Decoder {
 public:
  using Json = nlohmann::json;

  // The member `key` of object `o` at `path` ("spec"), or null when absent,
  // null, or `o` is not an object (the latter reported).
  const Json* Member(const Json* o, const std::string& path, const std::string& key);

  void String(const Json* o, const std::string& path, const std::string& key, std::string& out);
  void Bool(const Json* o, const std::string& path, const std::string& key, bool& out);
  void Int32(const Json* o, const std::string& path, const std::string& key, int32_t& out);
  void Int64(const Json* o, const std::string& path, const std::string& key, int64_t& out);
  // A map of strings; non-string values are reported.
  void StringMap(const Json* o, const std::string& path, const std::string& key,
                 std::map<std::string, std::string>& out);
  // Any JSON object, kept as is.
  void Object(const Json* o, const std::string& path, const std::string& key, Json& out);
  // Any JSON array, kept as is.
  void Array(const Json* o, const std::string& path, const std::string& key, Json& out);
  // An array of strings; other elements are reported ("path.key[i]").
  void StringList(const Json* o, const std::string& path, const std::string& key,
                  std::vector<std::string>& out);

  void Fail(std::string field, std::string message);
  const std::vector<FieldError>& errors() const { return errors_; }
  // OK, or InvalidArgument listing every error.
  absl::Status ToStatus() const;

 private:
  const Json* Typed(const Json* o, const std::string& path, const std::string& key,
                    Json::value_t type, const char* want);
  std::vector<FieldError> errors_;
};

// "a.b" from "a" and "b"; just "b" when `path` is empty.
inline std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// status.conditions of `status` (an object, or null) into `out`; entries
// that are not objects are skipped.
void DecodeStatusConditions(Decoder& d, const nlohmann::json* status, std::vector<Condition>& out);

}  // namespace quorum::api::internal

#endif  // QUORUM_API_DECODE_H_
