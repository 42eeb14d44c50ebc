#include "src/controllers/common/secret_data.h"

#include "absl/strings/escaping.h"

namespace quorum::controllers {

nlohmann::json EncodedSecretData(const std::map<std::string, std::string>& data) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : data) out[k] = absl::Base64Escape(v);
  return out;
}

std::string SecretValue(const nlohmann::json& secret, const std::string& key) {
  if (!secret.is_object()) return "";
  auto data = secret.find("data");
  if (data == secret.end() || !data->is_object()) return "";
  auto v = data->find(key);
  std::string out;
  if (v == data->end() || !v->is_string() || !absl::Base64Unescape(v->get<std::string>(), &out)) {
    return "";
  }
  return out;
}

}  // namespace quorum::controllers
