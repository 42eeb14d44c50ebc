// Process logging setup: spdlog with either human-readable text or one JSON
// object per line (for log collectors). Call once from main() before other
// threads start. Log lines must never carry secrets.
#ifndef QUORUM_SRC_BASE_LOGGING_H_
#define QUORUM_SRC_BASE_LOGGING_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace quorum {

// format: "text" | "json"; level: trace|debug|info|warn|error.
// Errors: InvalidArgument naming the bad value.
absl::Status SetupLogging(std::string_view format, std::string_view level);

// JSON string escaping (quotes not included), exposed for tests.
std::string JsonEscape(std::string_view s);

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_LOGGING_H_
