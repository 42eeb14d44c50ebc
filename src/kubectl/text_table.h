// Small helpers of the text renderer: ANSI colour that can be switched off,
// column-aligned tables whose widths ignore the colour codes, and a human
// age ("5m", "3h", "2d") of an RFC 3339 time against an injected `now`.
//
// Thread-safety: pure functions.
#ifndef QUORUM_SRC_KUBECTL_TEXT_TABLE_H_
#define QUORUM_SRC_KUBECTL_TEXT_TABLE_H_

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace quorum::kubectl {

enum class Colour { kNone, kGreen, kYellow, kRed, kBold, kDim };

struct Cell {
  std::string text;
  Colour colour = Colour::kNone;
};

// `text` wrapped in the colour's escape codes, or as is when `enabled` is
// false or the colour is kNone.
std::string Paint(const std::string& text, Colour colour, bool enabled);

// One line per row, columns padded to the widest cell (two spaces apart, no
// trailing blanks). Rows may be shorter than others.
std::string FormatTable(const std::vector<std::vector<Cell>>& rows, bool colour);

// "45s", "12m", "5h", "3d" from `rfc3339` to `now`; "" when it does not
// parse; "0s" for a time in the future (clocks disagree a little).
std::string Age(const std::string& rfc3339, absl::Time now);

// 1536 -> "1.5 KiB"; 0 -> "".
std::string HumanBytes(int64_t bytes);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_TEXT_TABLE_H_
