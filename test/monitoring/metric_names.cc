#include "test/monitoring/metric_names.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace quorum::monitoring {
namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Words that are never metric names wherever they stand.
bool IsKeyword(const std::string& lower) {
  static const std::set<std::string> kKeywords = {
      "and", "or", "unless",   "bool",       "offset",      "atan2", "inf",
      "nan", "on", "ignoring", "group_left", "group_right", "by",    "without"};
  return kKeywords.count(lower) > 0;
}

bool IsAggregation(const std::string& lower) {
  static const std::set<std::string> kAggregations = {
      "sum",   "min",          "max",     "avg",  "group",    "stddev", "stdvar",
      "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"};
  return kAggregations.count(lower) > 0;
}

// Keywords followed by a list of label names in parentheses.
bool TakesLabelList(const std::string& lower) {
  return lower == "by" || lower == "without" || lower == "on" || lower == "ignoring" ||
         lower == "group_left" || lower == "group_right";
}

// A cursor over the expression. Every Skip* starts on the construct's first
// character and stops after its last (or at the end of the text).
class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  std::set<std::string> Run() {
    while (i_ < s_.size()) Step();
    return std::move(names_);
  }

 private:
  void Step() {
    const char c = s_[i_];
    if (c == '"' || c == '\'' || c == '`') {
      SkipString();
    } else if (c == '#') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '{') {
      ReadMatchers();
    } else if (c == '[') {
      SkipPast(']');
    } else if (c == '$') {
      SkipVariable();
    } else if (IsDigit(c) || (c == '.' && i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))) {
      SkipNumber();
    } else if (IsIdentStart(c)) {
      Identifier();
    } else {
      ++i_;
    }
  }

  void Identifier() {
    const size_t start = i_;
    while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
    const std::string word(s_.substr(start, i_ - start));
    const std::string lower = Lower(word);
    const char next = NextNonSpace();
    if (TakesLabelList(lower)) {
      if (next == '(') SkipPastFromNext('(', ')');
      return;
    }
    if (IsKeyword(lower) || next == '(') return;  // a keyword, or a function's name
    const std::string next_word = Lower(NextWord());
    if (IsAggregation(lower) && (next_word == "by" || next_word == "without")) {
      return;  // `sum by (...) (...)`, `max without (...) (...)`
    }
    names_.insert(word);
  }

  // {a="x", __name__="m", b=~"y|z"}: only a __name__ matcher's value is kept.
  void ReadMatchers() {
    ++i_;
    while (i_ < s_.size() && s_[i_] != '}') {
      const char c = s_[i_];
      if (c == '"' || c == '\'' || c == '`') {
        SkipString();
      } else if (IsIdentStart(c)) {
        const size_t start = i_;
        while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
        if (s_.substr(start, i_ - start) == "__name__") ReadNameMatcher();
      } else {
        ++i_;
      }
    }
    if (i_ < s_.size()) ++i_;
  }

  // After `__name__`: `="name"` adds the name; a regex or negative matcher adds nothing.
  void ReadNameMatcher() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ + 1 >= s_.size() || s_[i_] != '=' || s_[i_ + 1] == '~') return;
    ++i_;
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'' && s_[i_] != '`')) return;
    const size_t start = i_ + 1;
    SkipString();
    if (i_ - start >= 1) names_.insert(std::string(s_.substr(start, i_ - start - 1)));
  }

  // "..." and '...' with backslash escapes; `...` raw.
  void SkipString() {
    const char quote = s_[i_++];
    while (i_ < s_.size() && s_[i_] != quote) {
      if (s_[i_] == '\\' && quote != '`') ++i_;
      ++i_;
    }
    if (i_ < s_.size()) ++i_;
  }

  // A literal: 1, 0.5, 1e-3, 0x1f, and durations such as 5m or 1h30m.
  void SkipNumber() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      const bool exponent_sign = (c == '+' || c == '-') && i_ > 0 &&
                                 (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E') &&
                                 !(i_ > 1 && (s_[i_ - 2] == 'x' || s_[i_ - 2] == 'X'));
      if (!IsIdentChar(c) && c != '.' && !exponent_sign) break;
      ++i_;
    }
  }

  // Grafana's $name, ${name}, ${name:format}, $__rate_interval.
  void SkipVariable() {
    ++i_;
    if (i_ < s_.size() && s_[i_] == '{') {
      SkipPast('}');
      return;
    }
    while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
  }

  void SkipPast(char close) {
    while (i_ < s_.size() && s_[i_] != close) {
      if (s_[i_] == '"' || s_[i_] == '\'' || s_[i_] == '`') {
        SkipString();
      } else {
        ++i_;
      }
    }
    if (i_ < s_.size()) ++i_;
  }

  // Moves to the next `open` (past spaces) and past its matching `close`.
  void SkipPastFromNext(char open, char close) {
    while (i_ < s_.size() && s_[i_] != open) ++i_;
    if (i_ < s_.size()) ++i_;
    SkipPast(close);
  }

  char NextNonSpace() const {
    size_t j = i_;
    while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
    return j < s_.size() ? s_[j] : '\0';
  }

  // The identifier after the spaces that follow the cursor ("" when none).
  std::string_view NextWord() const {
    size_t j = i_;
    while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
    const size_t start = j;
    while (j < s_.size() && IsIdentChar(s_[j])) ++j;
    return s_.substr(start, j - start);
  }

  std::string_view s_;
  size_t i_ = 0;
  std::set<std::string> names_;
};

}  // namespace

std::set<std::string> MetricNamesInPromQL(std::string_view expr) { return Scanner(expr).Run(); }

std::set<std::string> MetricNamesInPromQL(const std::vector<std::string>& exprs) {
  std::set<std::string> out;
  for (const std::string& e : exprs) out.merge(MetricNamesInPromQL(std::string_view(e)));
  return out;
}

}  // namespace quorum::monitoring
