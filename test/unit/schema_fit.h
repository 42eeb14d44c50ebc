// Checks that a value a controller writes (a status) only uses fields its
// CRD schema declares: server-side apply refuses an undeclared field
// ("field not declared in schema") and the whole status write fails.
// Header-only; walks `properties`, `items` and `additionalProperties`;
// `$ref` nodes and x-kubernetes-preserve-unknown-fields accept anything.
#ifndef QUORUM_TEST_UNIT_SCHEMA_FIT_H_
#define QUORUM_TEST_UNIT_SCHEMA_FIT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace quorum::testing {

// The paths of `value` that `schema` does not declare (empty: it fits).
inline void UndeclaredFields(const nlohmann::json& value, const nlohmann::json& schema,
                             const std::string& path, std::vector<std::string>& out) {
  if (!schema.is_object() || schema.contains("$ref") ||
      schema.value("x-kubernetes-preserve-unknown-fields", false)) {
    return;
  }
  if (value.is_object()) {
    const nlohmann::json props = schema.value("properties", nlohmann::json::object());
    const nlohmann::json extra = schema.value("additionalProperties", nlohmann::json());
    for (const auto& [key, v] : value.items()) {
      if (props.contains(key)) {
        UndeclaredFields(v, props[key], path + "." + key, out);
      } else if (extra.is_object()) {
        UndeclaredFields(v, extra, path + "." + key, out);
      } else {
        out.push_back(path + "." + key);
      }
    }
  } else if (value.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < value.size(); ++i) {
      UndeclaredFields(value[i], schema["items"], path + "[" + std::to_string(i) + "]", out);
    }
  }
}

inline std::vector<std::string> UndeclaredFields(const nlohmann::json& value,
                                                 const nlohmann::json& schema) {
  std::vector<std::string> out;
  UndeclaredFields(value, schema, "", out);
  return out;
}

}  // namespace quorum::testing

#endif  // QUORUM_TEST_UNIT_SCHEMA_FIT_H_
