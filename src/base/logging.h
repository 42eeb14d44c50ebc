// Process logging setup: spdlog with either human-readable text or one JSON
// object per line (for log collectors). Call once from main() before other
// threads start. Log lines must never carry secrets.
#ifndef QUORUM_SRC_BASE_LOGGING_H_
#define QUORUM_SRC_BASE_LOGGING_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace quorum {

// format: "text" | "json"; level: trace|debug|info|warn|error.
// Errors: InvalidArgument naming the bad value.
absl::Status SetupLogging(std::string_view format, std::string_view level);

// JSON string escaping (quotes not included), exposed for tests.
std::string JsonEscape(std::string_view s);

// Key/value fields added to every line this thread logs while the scope
// lives: as members of the JSON object with --log-format=json, as
// " key=value" after the message with text. Scopes nest (inner fields come
// after outer ones). Values must never be secrets.
using LogFields = std::vector<std::pair<std::string, std::string>>;
class ScopedLogFields {
 public:
  explicit ScopedLogFields(LogFields fields);
  ~ScopedLogFields();
  ScopedLogFields(const ScopedLogFields&) = delete;
  ScopedLogFields& operator=(const ScopedLogFields&) = delete;

 private:
  size_t previous_size_;
};

// The fields of this thread's current scopes, outermost first.
const LogFields& CurrentLogFields();

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_LOGGING_H_
