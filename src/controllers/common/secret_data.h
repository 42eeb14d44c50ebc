// A Secret's `data` map, both ways: plain values to the base64 the API
// server stores, and one key back to its plain value.
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_SECRET_DATA_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_SECRET_DATA_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace quorum::controllers {

// {key: base64(value)} for a Secret's `data`.
nlohmann::json EncodedSecretData(const std::map<std::string, std::string>& data);

// data[key] of `secret`, decoded; "" when the key is absent, not a string or
// not base64 (a caller that must tell these apart reads the field itself).
std::string SecretValue(const nlohmann::json& secret, const std::string& key);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_SECRET_DATA_H_
