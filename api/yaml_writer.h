// A deterministic JSON → YAML writer for generated manifests: block style,
// two-space indentation, sequences indented under their key (as
// controller-gen writes CRDs), keys in the JSON object's (sorted) order,
// multi-line strings as literal blocks (|-, or | with one final newline),
// and every string that YAML would read as something else (true, 1.5, null,
// "a: b", leading '-', ...) double-quoted. The same JSON always gives the
// same bytes, so generated files can be compared byte for byte.
//
// Thread-safety: pure function.
#ifndef QUORUM_API_YAML_WRITER_H_
#define QUORUM_API_YAML_WRITER_H_

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace quorum::api {

// The YAML text of `value` (a document without "---"), ending in a newline.
std::string ToYaml(const nlohmann::json& value);

// True when `s` can be written as a plain (unquoted) YAML scalar and read
// back as the same string.
bool IsPlainYamlString(const std::string& s);

}  // namespace quorum::api

#endif  // QUORUM_API_YAML_WRITER_H_
