#include "api/openapi_schema.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kRefPrefix = "#/components/schemas/";
constexpr std::string_view kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
// apimachinery's Quantity grammar, as controller-gen writes it.
constexpr char kQuantityPattern[] =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

// Keywords copied as they are.
const std::set<std::string, std::less<>>& CopiedKeys() {
  static const auto* keys = new std::set<std::string, std::less<>>{
      "type",
      "enum",
      "required",
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "multipleOf",
      "minLength",
      "maxLength",
      "pattern",
      "minItems",
      "maxItems",
      "minProperties",
      "maxProperties",
      "nullable",
      "x-kubernetes-list-type",
      "x-kubernetes-list-map-keys",
      "x-kubernetes-map-type",
      "x-kubernetes-int-or-string",
      "x-kubernetes-preserve-unknown-fields",
      "x-kubernetes-embedded-resource",
      "x-kubernetes-validations",
  };
  return *keys;
}

// Keywords with no meaning for a CRD (merge strategies of built-in types,
// documentation-only fields).
const std::set<std::string, std::less<>>& DroppedKeys() {
  static const auto* keys = new std::set<std::string, std::less<>>{
      "x-kubernetes-patch-merge-key",
      "x-kubernetes-patch-strategy",
      "x-kubernetes-unions",
      "x-kubernetes-group-version-kind",
      "example",
      "externalDocs",
  };
  return *keys;
}

bool IsZeroValue(const Json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v == 0;
  if (v.is_object() || v.is_array()) return v.empty();
  return v.is_null();
}

std::string Where(const std::string& path) { return path.empty() ? "<root>" : path; }

// The referenced name of a node that is a reference: {$ref} or the API
// server's {allOf: [{$ref}]} wrapping. Empty when the node is no reference.
absl::StatusOr<std::string> RefOf(const Json& node, const std::string& path) {
  const Json* ref = nullptr;
  if (auto it = node.find("$ref"); it != node.end()) ref = &*it;
  if (auto it = node.find("allOf"); it != node.end()) {
    if (ref != nullptr || !it->is_array() || it->size() != 1 || !(*it)[0].is_object() ||
        (*it)[0].size() != 1 || !(*it)[0].contains("$ref")) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(path), ": allOf is supported only as a wrapper of one $ref"));
    }
    ref = &(*it)[0]["$ref"];
  }
  if (ref == nullptr) return std::string();
  if (!ref->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(Where(path), ": $ref is not a string"));
  }
  std::string name = ref->get<std::string>();
  if (name.starts_with(kRefPrefix)) name.erase(0, kRefPrefix.size());
  return name;
}

class Inliner {
 public:
  Inliner(const OpenApiIndex& index, const InlineOptions& options)
      : index_(index), options_(options) {}

  // `ours`: the node belongs to the input schema (not to an inlined type).
  // `map_keys`: the list-map keys when `node` is the item schema of a map list.
  // `keep_default`: the node is a list-map key, whose default must survive.
  // NOLINTNEXTLINE(readability-function-size): one recursive walk, a case per OpenAPI keyword.
  absl::StatusOr<Json> Convert(const Json& node, const std::string& path, bool ours,
                               const std::vector<std::string>* map_keys, bool keep_default) {
    if (!node.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(Where(path), ": schema is not an object"));
    }
    absl::StatusOr<std::string> ref = RefOf(node, path);
    if (!ref.ok()) return ref.status();
    if (!ref->empty()) return ConvertRef(node, *ref, path, ours, map_keys, keep_default);
    if (node.contains("x-quorum-partial")) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(path), ": x-quorum-partial is allowed only next to a $ref"));
    }

    Json out = Json::object();
    bool int_or_string = false;
    for (const auto& [key, value] : node.items()) {
      if (CopiedKeys().count(key) != 0) {
        out[key] = value;
      } else if (DroppedKeys().count(key) != 0) {
        continue;
      } else if (key == "description") {
        if (ours || options_.kubernetes_descriptions) out[key] = value;
      } else if (key == "default") {
        if (ours || keep_default || !IsZeroValue(value)) out[key] = value;
      } else if (key == "format") {
        if (value == "int-or-string") {
          int_or_string = true;
        } else {
          out[key] = value;
        }
      } else if (key == "oneOf" || key == "anyOf") {
        if (ours && key == "anyOf") {
          out[key] = value;
        } else if (IsIntOrStringUnion(value)) {
          int_or_string = true;
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(path), ": ", key, " other than integer-or-string has no structural form"));
        }
      } else if (key == "items") {
        const std::vector<std::string> keys = ListMapKeys(node);
        absl::StatusOr<Json> items =
            Convert(value, path + "[]", ours, keys.empty() ? nullptr : &keys, false);
        if (!items.ok()) return items.status();
        out[key] = *std::move(items);
      } else if (key == "properties") {
        if (!value.is_object()) {
          return absl::InvalidArgumentError(absl::StrCat(Where(path), ": properties is not a map"));
        }
        Json props = Json::object();
        for (const auto& [name, prop] : value.items()) {
          // A list-map key needs its default only when it is not required.
          const bool is_key =
              map_keys != nullptr &&
              std::find(map_keys->begin(), map_keys->end(), name) != map_keys->end() &&
              !IsRequired(node, name);
          absl::StatusOr<Json> p =
              Convert(prop, path.empty() ? name : path + "." + name, ours, nullptr, is_key);
          if (!p.ok()) return p.status();
          props[name] = *std::move(p);
        }
        out[key] = std::move(props);
      } else if (key == "additionalProperties") {
        if (value.is_boolean()) {
          out[key] = value;
        } else {
          absl::StatusOr<Json> a = Convert(value, path + "{}", ours, nullptr, false);
          if (!a.ok()) return a.status();
          out[key] = *std::move(a);
        }
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(path), ": unsupported schema keyword \"", key, "\""));
      }
    }
    if (int_or_string) {
      out.erase("type");
      out["x-kubernetes-int-or-string"] = true;
      out["anyOf"] = Json::array({{{"type", "integer"}}, {{"type", "string"}}});
    }
    if (!out.contains("type") && !out.contains("x-kubernetes-int-or-string") &&
        !out.contains("x-kubernetes-preserve-unknown-fields")) {
      return absl::InvalidArgumentError(absl::StrCat(Where(path), ": schema has no type"));
    }
    return out;
  }

 private:
  absl::StatusOr<Json> ConvertRef(const Json& node, const std::string& name,
                                  const std::string& path, bool ours,
                                  const std::vector<std::string>* map_keys, bool keep_default) {
    if (std::find(stack_.begin(), stack_.end(), name) != stack_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(path), ": recursive type ", name, " cannot be inlined"));
    }
    const Json* target = index_.Find(name);
    if (target == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(Where(path), ": $ref ", name, " is not in the OpenAPI documents"));
    }
    Json embedded_meta;
    if (name == kObjectMeta) {
      embedded_meta = EmbeddedObjectMeta(*target);
      target = &embedded_meta;
    }
    stack_.push_back(name);
    absl::StatusOr<Json> out = Convert(*target, path, /*ours=*/false, map_keys, keep_default);
    stack_.pop_back();
    if (!out.ok()) return out.status();
    if (name == kQuantity) (*out)["pattern"] = kQuantityPattern;

    // The referring node's own keywords describe this use of the type and win.
    for (const auto& [key, value] : node.items()) {
      if (key == "$ref" || key == "allOf") continue;
      if (key == "x-quorum-partial") {
        if (value == true) out->erase("required");
      } else if (key == "description") {
        if (ours || options_.kubernetes_descriptions) {
          (*out)[key] = value;
        } else {
          out->erase(key);
        }
      } else if (key == "default") {
        if (ours || keep_default || !IsZeroValue(value)) (*out)[key] = value;
      } else if (CopiedKeys().count(key) != 0) {
        (*out)[key] = value;
      } else if (DroppedKeys().count(key) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(path), ": \"", key, "\" next to a $ref is not supported"));
      }
    }
    return out;
  }

  static bool IsIntOrStringUnion(const Json& alternatives) {
    if (!alternatives.is_array() || alternatives.size() != 2) return false;
    bool number = false, string = false;
    for (const Json& a : alternatives) {
      if (!a.is_object() || a.size() != 1 || !a.contains("type")) return false;
      number |= a["type"] == "integer" || a["type"] == "number";
      string |= a["type"] == "string";
    }
    return number && string;
  }

  static bool IsRequired(const Json& node, const std::string& name) {
    auto it = node.find("required");
    if (it == node.end() || !it->is_array()) return false;
    return std::find(it->begin(), it->end(), Json(name)) != it->end();
  }

  static std::vector<std::string> ListMapKeys(const Json& node) {
    std::vector<std::string> keys;
    auto type = node.find("x-kubernetes-list-type");
    if (type == node.end() || *type != "map") return keys;
    auto it = node.find("x-kubernetes-list-map-keys");
    if (it == node.end() || !it->is_array()) return keys;
    for (const Json& k : *it) {
      if (k.is_string()) keys.push_back(k.get<std::string>());
    }
    return keys;
  }

  static Json EmbeddedObjectMeta(const Json& meta) {
    Json out = meta;
    Json props = Json::object();
    if (auto it = meta.find("properties"); it != meta.end() && it->is_object()) {
      for (const char* keep : {"name", "namespace", "labels", "annotations", "finalizers"}) {
        if (auto p = it->find(keep); p != it->end()) props[keep] = *p;
      }
    }
    out["properties"] = std::move(props);
    out.erase("required");
    return out;
  }

  const OpenApiIndex& index_;
  const InlineOptions& options_;
  std::vector<std::string> stack_;
};

}  // namespace

absl::Status OpenApiIndex::Add(const Json& doc) {
  const Json* schemas = nullptr;
  if (doc.is_object()) {
    auto c = doc.find("components");
    if (c != doc.end() && c->is_object()) {
      auto s = c->find("schemas");
      if (s != c->end() && s->is_object()) schemas = &*s;
    }
  }
  if (schemas == nullptr) {
    return absl::InvalidArgumentError("OpenAPI document has no components.schemas");
  }
  for (const auto& [name, schema] : schemas->items()) schemas_.emplace(name, schema);
  return absl::OkStatus();
}

const Json* OpenApiIndex::Find(std::string_view name_or_ref) const {
  if (name_or_ref.starts_with(kRefPrefix)) name_or_ref.remove_prefix(kRefPrefix.size());
  auto it = schemas_.find(name_or_ref);
  return it == schemas_.end() ? nullptr : &it->second;
}

absl::StatusOr<Json> InlineStructuralSchema(const Json& schema, const OpenApiIndex& index,
                                            const InlineOptions& options) {
  Inliner inliner(index, options);
  return inliner.Convert(schema, "", /*ours=*/true, nullptr, false);
}

}  // namespace quorum::api
