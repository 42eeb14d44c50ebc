#include "src/base/failpoint.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace quorum {

std::set<std::string> ParseFailpoints(std::string_view value) {
  std::set<std::string> out;
  for (absl::string_view name :
       absl::StrSplit(absl::string_view(value.data(), value.size()), ',', absl::SkipWhitespace())) {
    name = absl::StripAsciiWhitespace(name);
    if (!name.empty()) out.emplace(name.data(), name.size());
  }
  return out;
}

void Failpoint(std::string_view name) {
  static const std::set<std::string>* const armed = [] {
    const char* env = std::getenv("QUORUM_FAILPOINTS");
    return new std::set<std::string>(ParseFailpoints(env == nullptr ? "" : env));
  }();
  if (armed->empty() || !armed->contains(std::string(name))) return;
  spdlog::critical("failpoint {} reached: exiting with status {}", name, kFailpointExitCode);
  spdlog::default_logger()->flush();
  std::fprintf(stderr, "failpoint %.*s reached\n", static_cast<int>(name.size()), name.data());
  std::_Exit(kFailpointExitCode);
}

}  // namespace quorum
