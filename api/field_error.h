// FieldError: one reason an object is invalid, named by the field's path the
// way kubectl shows it ("spec.podDisruptionBudgetTemplate.spec.minAvailable",
// "spec.options[data-dir]") with a message that says how to fix it.
//
// Thread-safety: value type.
#ifndef QUORUM_API_FIELD_ERROR_H_
#define QUORUM_API_FIELD_ERROR_H_

#include <string>
#include <vector>

namespace quorum::api {

struct FieldError {
  std::string field;
  std::string message;

  std::string ToString() const { return field + ": " + message; }
  friend bool operator==(const FieldError&, const FieldError&) = default;
};

// "a: x; b: y" — every error, in order.
std::string JoinFieldErrors(const std::vector<FieldError>& errors);

}  // namespace quorum::api

#endif  // QUORUM_API_FIELD_ERROR_H_
