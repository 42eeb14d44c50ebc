#include "src/kube/managed_fields.h"

#include <optional>
#include <utility>

namespace quorum::kube {
namespace {

constexpr size_t kNone = std::string_view::npos;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// The index of the closing quote of the string whose opening quote is at `i`.
size_t StringEnd(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i;
    }
  }
  return kNone;
}

// The index just past the array or object that opens at `i`.
size_t ContainerEnd(std::string_view s, size_t i) {
  int depth = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      i = StringEnd(s, i);
      if (i == kNone) return kNone;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  return kNone;
}

// [begin, end) of `"managedFields": [...]` in object.metadata, with one
// adjoining comma, or nullopt.
std::optional<std::pair<size_t, size_t>> Span(std::string_view s) {
  // Keys of the objects open at depths 1..3 (the event, its object, metadata).
  std::string_view keys[3];
  bool in_object[3] = {false, false, false};
  int depth = 0;
  bool expect_key = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      const size_t end = StringEnd(s, i);
      if (end == kNone) return std::nullopt;
      if (expect_key && depth >= 1 && depth <= 3) {
        const std::string_view key = s.substr(i + 1, end - i - 1);
        keys[depth - 1] = key;
        if (depth == 3 && key == "managedFields" && keys[0] == "object" && keys[1] == "metadata") {
          size_t v = SkipSpace(s, end + 1);
          if (v >= s.size() || s[v] != ':') return std::nullopt;
          v = SkipSpace(s, v + 1);
          if (v >= s.size() || (s[v] != '[' && s[v] != '{')) return std::nullopt;
          const size_t after = ContainerEnd(s, v);
          if (after == kNone) return std::nullopt;
          // Take the comma after the member, or else the one before it.
          const size_t next = SkipSpace(s, after);
          if (next < s.size() && s[next] == ',') return std::make_pair(i, next + 1);
          size_t prev = i;
          while (prev > 0 && IsSpace(s[prev - 1])) --prev;
          if (prev > 0 && s[prev - 1] == ',') return std::make_pair(prev - 1, after);
          return std::make_pair(i, after);  // the only member
        }
      }
      expect_key = false;
      i = end;
      continue;
    }
    switch (c) {
      case '{':
      case '[':
        ++depth;
        if (depth <= 3) {
          in_object[depth - 1] = c == '{';
          keys[depth - 1] = {};
        }
        expect_key = c == '{';
        break;
      case '}':
      case ']':
        if (--depth < 0) return std::nullopt;
        expect_key = false;
        break;
      case ',':
        expect_key = depth >= 1 && depth <= 3 && in_object[depth - 1];
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view WithoutManagedFields(std::string_view line, std::string& scratch) {
  const std::optional<std::pair<size_t, size_t>> span = Span(line);
  if (!span) return line;
  scratch.clear();
  scratch.reserve(line.size() - (span->second - span->first));
  scratch.append(line.substr(0, span->first));
  scratch.append(line.substr(span->second));
  return scratch;
}

}  // namespace quorum::kube
