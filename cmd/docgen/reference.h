// Renders a CustomResourceDefinition as a Markdown field reference: every
// field of spec and status with its type, default, validation and the
// description from the schema, so docs/reference cannot drift from the CRD.
// Embedded Kubernetes types (a PodSpec, a ServiceSpec, a Container: schemas
// with more than kMaxInlineProperties fields) are listed as one row that
// points to the upstream reference instead of being unrolled.
//
// Thread-safety: pure functions.
#ifndef QUORUM_CMD_DOCGEN_REFERENCE_H_
#define QUORUM_CMD_DOCGEN_REFERENCE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace quorum::docgen {

inline constexpr int kMaxInlineProperties = 12;

// The file name for `crd`'s page: "<singular>.md".
std::string ReferenceFileName(const nlohmann::json& crd);

// The page for the CRD's first served version. `source` names the CRD file
// in the "generated from" line.
std::string RenderReference(const nlohmann::json& crd, const std::string& source);

}  // namespace quorum::docgen

#endif  // QUORUM_CMD_DOCGEN_REFERENCE_H_
