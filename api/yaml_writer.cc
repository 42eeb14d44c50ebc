#include "api/yaml_writer.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>

namespace quorum::api {
namespace {

using Json = nlohmann::json;

bool Lower(std::string s, std::initializer_list<std::string_view> words) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::find(words.begin(), words.end(), s) != words.end();
}

// Would a YAML 1.1 or 1.2 reader take `s` for a number?
bool LooksNumeric(const std::string& s) {
  std::string_view v = s;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  if (v.empty()) return false;
  if (Lower(std::string(v), {".inf", ".nan"})) return true;
  if (v[0] != '.' && !std::isdigit(static_cast<unsigned char>(v[0]))) return false;
  // Digits with any of . _ : e E x o and hex letters (0x1F, 1_000, 1:30, 1e3).
  return std::all_of(v.begin(), v.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
           c == 'x' || c == 'X' || c == 'o' || c == '+' || c == '-';
  });
}

// JSON's string escapes are valid in YAML double-quoted scalars.
std::string Quoted(const std::string& s) {
  return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Scalar(const Json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return IsPlainYamlString(s) ? s : Quoted(s);
  }
  if (v.is_null()) return "null";
  if (v.is_object()) return "{}";  // only called for empty containers
  if (v.is_array()) return "[]";
  return v.dump();
}

// A string that goes out as a literal block: multi-line, no trailing
// whitespace on any line, first line not indented, at most one final
// newline, and only printable characters (tabs allowed).
bool UseLiteral(const std::string& s) {
  if (s.find('\n') == std::string::npos || s.front() == ' ' || s.front() == '\t' ||
      s.front() == '\n') {
    return false;
  }
  if (s.size() >= 2 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && c != '\n' && c != '\t') return false;
    if (c == 0x7f) return false;
    if ((c == ' ' || c == '\t') && (i + 1 == s.size() || s[i + 1] == '\n')) return false;
  }
  return true;
}

void Indent(std::string& out, int n) { out.append(static_cast<size_t>(n), ' '); }

void Literal(const std::string& s, int indent, std::string& out) {
  const bool final_newline = s.back() == '\n';
  out += final_newline ? " |\n" : " |-\n";
  std::string_view rest(s);
  if (final_newline) rest.remove_suffix(1);
  while (true) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    if (!line.empty()) {
      Indent(out, indent);
      out += line;
    }
    out += '\n';
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
}

void Map(const Json& obj, int indent, bool inline_first, std::string& out);
void Seq(const Json& arr, int indent, std::string& out);

// Writes what follows "key:" or "-".
void After(const Json& v, int indent, std::string& out) {
  if (v.is_string() && UseLiteral(v.get_ref<const std::string&>())) {
    Literal(v.get_ref<const std::string&>(), indent + 2, out);
  } else if (v.is_object() && !v.empty()) {
    out += '\n';
    Map(v, indent + 2, false, out);
  } else if (v.is_array() && !v.empty()) {
    out += '\n';
    Seq(v, indent + 2, out);
  } else {
    out += ' ';
    out += Scalar(v);
    out += '\n';
  }
}

void Map(const Json& obj, int indent, bool inline_first, std::string& out) {
  bool first = true;
  for (const auto& [key, value] : obj.items()) {
    if (!(first && inline_first)) Indent(out, indent);
    first = false;
    out += IsPlainYamlString(key) ? key : Quoted(key);
    out += ':';
    After(value, indent, out);
  }
}

void Seq(const Json& arr, int indent, std::string& out) {
  for (const Json& item : arr) {
    Indent(out, indent);
    out += '-';
    if (item.is_object() && !item.empty()) {
      out += ' ';
      Map(item, indent + 2, true, out);
    } else {
      After(item, indent, out);
    }
  }
}

}  // namespace

bool IsPlainYamlString(const std::string& s) {
  if (s.empty()) return false;
  static constexpr std::string_view kBadStart = "-?:,[]{}#&*!|>'\"%@` \t";
  if (kBadStart.find(s.front()) != std::string_view::npos) return false;
  if (s.back() == ' ' || s.back() == ':' || s.back() == '\t') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c == ':' && i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t')) return false;
    if (c == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return false;
    // Flow indicators would end a plain scalar inside flow collections;
    // quoting them keeps the output safe to paste anywhere.
    if (c == ',' || c == '[' || c == ']' || c == '{' || c == '}') return false;
  }
  if (Lower(s, {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"})) return false;
  if (LooksNumeric(s)) return false;
  return true;
}

std::string ToYaml(const Json& value) {
  std::string out;
  if (value.is_object() && !value.empty()) {
    Map(value, 0, false, out);
  } else if (value.is_array() && !value.empty()) {
    Seq(value, 0, out);
  } else if (value.is_string() && UseLiteral(value.get_ref<const std::string&>())) {
    Literal(value.get_ref<const std::string&>(), 2, out);
    out.erase(0, 1);  // no key before the block header
  } else {
    out = Scalar(value) + "\n";
  }
  return out;
}

}  // namespace quorum::api
