#include "test/testmain/source_filter.h"

namespace quorum::testmain {
namespace {

// '*' matches any run of characters, '?' any one character.
bool GlobMatches(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool AnyMatches(std::string_view patterns, std::string_view name) {
  while (!patterns.empty()) {
    const size_t colon = patterns.find(':');
    const std::string_view pattern = patterns.substr(0, colon);
    if (!pattern.empty() && GlobMatches(pattern, name)) return true;
    if (colon == std::string_view::npos) break;
    patterns.remove_prefix(colon + 1);
  }
  return false;
}

bool DefinedIn(std::string_view file, std::string_view source) {
  if (file == source) return true;
  return file.size() > source.size() && file.ends_with(source) &&
         file[file.size() - source.size() - 1] == '/';
}

}  // namespace

bool MatchesGtestFilter(std::string_view filter, std::string_view name) {
  const size_t dash = filter.find('-');
  std::string_view positive = filter.substr(0, dash);
  const std::string_view negative =
      dash == std::string_view::npos ? std::string_view() : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return AnyMatches(positive, name) && !AnyMatches(negative, name);
}

std::optional<std::string> FilterForSource(const std::vector<TestCase>& cases,
                                           std::string_view source, std::string_view user_filter) {
  bool defined = false;
  std::string chosen;
  for (const TestCase& c : cases) {
    if (!DefinedIn(c.file, source)) continue;
    defined = true;
    if (!MatchesGtestFilter(user_filter, c.full_name)) continue;
    if (!chosen.empty()) chosen += ':';
    chosen += c.full_name;
  }
  if (!defined) return std::nullopt;
  if (chosen.empty()) return "-*";
  return chosen;
}

}  // namespace quorum::testmain
