#include "src/webhooks/json_patch.h"

#include <nlohmann/json.hpp>

namespace quorum::webhooks {
namespace {

using Json = nlohmann::json;

void Diff(const Json& from, const Json& to, const std::string& path, Json& ops) {
  if (from == to) return;
  if (!from.is_object() || !to.is_object()) {
    ops.push_back({{"op", "replace"}, {"path", path}, {"value", to}});
    return;
  }
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) {
      ops.push_back({{"op", "remove"}, {"path", path + "/" + EscapeJsonPointerToken(key)}});
    }
  }
  for (const auto& [key, value] : to.items()) {
    const std::string child = path + "/" + EscapeJsonPointerToken(key);
    auto it = from.find(key);
    if (it == from.end()) {
      ops.push_back({{"op", "add"}, {"path", child}, {"value", value}});
    } else {
      Diff(*it, value, child, ops);
    }
  }
}

}  // namespace

std::string EscapeJsonPointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Json CreateJsonPatch(const Json& from, const Json& to) {
  Json ops = Json::array();
  Diff(from, to, "", ops);
  return ops;
}

}  // namespace quorum::webhooks
