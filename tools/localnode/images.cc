#include "tools/localnode/images.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace quorum::localnode {

absl::StatusOr<std::vector<ImageRule>> ParseImageTable(const std::string& text) {
  std::vector<ImageRule> rules;
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++n;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.empty()) continue;
    if (fields.size() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("image table line ", n, ": want `PATTERN PATH [COMMAND...]`"));
    }
    ImageRule r;
    r.pattern = fields[0];
    r.path = absl::StrSplit(fields[1], ':', absl::SkipEmpty());
    r.entrypoint.assign(fields.begin() + 2, fields.end());
    rules.push_back(std::move(r));
  }
  return rules;
}

absl::StatusOr<std::vector<ImageRule>> LoadImageTable(const std::string& file) {
  std::ifstream in(file);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read image table ", file));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseImageTable(ss.str());
}

std::optional<ImageRule> MatchImage(const std::vector<ImageRule>& rules, const std::string& image) {
  for (const ImageRule& r : rules) {
    if (fnmatch(r.pattern.c_str(), image.c_str(), 0) == 0) return r;
  }
  return std::nullopt;
}

}  // namespace quorum::localnode
