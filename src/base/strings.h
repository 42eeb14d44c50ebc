// Bridges between std::string_view and absl::string_view.
//
// Debian's Abseil (20220623) is built with its own absl::string_view, a type
// distinct from std::string_view, so absl::StrCat and friends do not take a
// std::string_view. Quorum's interfaces use std::string_view; wrap it with
// Absl() where it meets Abseil.
#ifndef QUORUM_SRC_BASE_STRINGS_H_
#define QUORUM_SRC_BASE_STRINGS_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace quorum {

inline absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view Std(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_STRINGS_H_
