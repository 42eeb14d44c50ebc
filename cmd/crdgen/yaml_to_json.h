// YAML → JSON for Kubernetes manifests, with YAML 1.2 core-schema typing of
// plain scalars (null, true/false, integers, floats; everything quoted or in
// a block is a string). Header-only so that tests that load deploy/crds can
// share it without linking the crdgen program; needs yaml-cpp.
//
// Thread-safety: pure functions.
#ifndef QUORUM_CMD_CRDGEN_YAML_TO_JSON_H_
#define QUORUM_CMD_CRDGEN_YAML_TO_JSON_H_

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "absl/status/statusor.h"

namespace quorum::crdgen {

inline nlohmann::json PlainScalarToJson(const std::string& s) {
  static const std::regex kInt(R"([-+]?[0-9]+)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    errno = 0;
    const long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
  }
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  return s;
}

inline nlohmann::json YamlNodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = YamlNodeToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(YamlNodeToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted or block scalars "!".
      if (node.Tag() == "!") return node.Scalar();
      return PlainScalarToJson(node.Scalar());
    default:
      return nullptr;
  }
}

// Errors: InvalidArgument when `yaml` does not parse (the message has the
// line and column).
inline absl::StatusOr<nlohmann::json> YamlToJson(const std::string& yaml) {
  try {
    return YamlNodeToJson(YAML::Load(yaml));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(std::string("YAML does not parse: ") + e.what());
  }
}

}  // namespace quorum::crdgen

#endif  // QUORUM_CMD_CRDGEN_YAML_TO_JSON_H_
