#include "api/field_error.h"

namespace quorum::api {

std::string JoinFieldErrors(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.ToString();
  }
  return out;
}

}  // namespace quorum::api
