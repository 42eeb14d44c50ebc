#include "src/kubectl/text_table.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace quorum::kubectl {
namespace {

const char* Code(Colour c) {
  switch (c) {
    case Colour::kGreen:
      return "\x1b[32m";
    case Colour::kYellow:
      return "\x1b[33m";
    case Colour::kRed:
      return "\x1b[31m";
    case Colour::kBold:
      return "\x1b[1m";
    case Colour::kDim:
      return "\x1b[2m";
    case Colour::kNone:
      break;
  }
  return "";
}

}  // namespace

std::string Paint(const std::string& text, Colour colour, bool enabled) {
  if (!enabled || colour == Colour::kNone || text.empty()) return text;
  return absl::StrCat(Code(colour), text, "\x1b[0m");
}

std::string FormatTable(const std::vector<std::vector<Cell>>& rows, bool colour) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].text.size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      line += Paint(row[i].text, row[i].colour, colour);
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].text.size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string Age(const std::string& rfc3339, absl::Time now) {
  absl::Time t;
  std::string err;
  if (rfc3339.empty() || !absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) return "";
  const int64_t s = std::max<int64_t>(0, absl::ToInt64Seconds(now - t));
  if (s < 120) return absl::StrCat(s, "s");
  if (s < 2 * 3600) return absl::StrCat(s / 60, "m");
  if (s < 2 * 86400) return absl::StrCat(s / 3600, "h");
  return absl::StrCat(s / 86400, "d");
}

std::string HumanBytes(int64_t bytes) {
  if (bytes <= 0) return "";
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace quorum::kubectl
