#include "cmd/docgen/reference.h"

#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "src/base/json_access.h"

namespace quorum::docgen {
namespace {

using Json = nlohmann::json;

std::string Cell(const std::string& text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\r", ""}, {"\n", " "}});
}

std::string Scalar(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string TypeOf(const Json& node) {
  if (node.value("x-kubernetes-int-or-string", false)) return "int or string";
  const std::string type = node.value("type", "");
  if (type == "array") {
    const Json items = node.value("items", Json::object());
    return "[]" + (items.empty() ? std::string("any") : TypeOf(items));
  }
  if (type == "object" && node.contains("additionalProperties")) {
    return "map[string]" + TypeOf(node["additionalProperties"]);
  }
  if (type.empty()) return node.value("x-kubernetes-preserve-unknown-fields", false) ? "any" : "";
  return type;
}

std::string Validation(const Json& node) {
  std::vector<std::string> parts;
  if (node.contains("enum")) {
    std::vector<std::string> values;
    for (const Json& v : node["enum"]) values.push_back("`" + Scalar(v) + "`");
    parts.push_back("one of " + absl::StrJoin(values, ", "));
  }
  for (const auto& [key, label] :
       std::vector<std::pair<std::string, std::string>>{{"minimum", "min"},
                                                        {"maximum", "max"},
                                                        {"minLength", "min length"},
                                                        {"maxLength", "max length"},
                                                        {"minItems", "min items"},
                                                        {"maxItems", "max items"},
                                                        {"maxProperties", "max entries"},
                                                        {"format", "format"}}) {
    if (node.contains(key)) parts.push_back(absl::StrCat(label, " ", Scalar(node[key])));
  }
  if (node.contains("pattern")) parts.push_back("pattern `" + Scalar(node["pattern"]) + "`");
  for (const Json& rule : node.value("x-kubernetes-validations", Json::array())) {
    parts.push_back(rule.value("message", rule.value("rule", "")));
  }
  return absl::StrJoin(parts, "; ");
}

struct Row {
  std::string path, type, required_default, validation, description;
};

void Walk(const Json& node, const std::string& path, int depth, std::vector<Row>& rows) {
  const Json props = node.value("properties", Json::object());
  std::vector<std::string> required;
  for (const Json& r : node.value("required", Json::array())) required.push_back(r);
  for (const auto& [name, child] : props.items()) {
    const std::string child_path = path.empty() ? name : path + "." + name;
    std::string req =
        std::find(required.begin(), required.end(), name) != required.end() ? "required" : "";
    if (child.contains("default")) {
      req += absl::StrCat(req.empty() ? "" : "; ", "default `", Scalar(child["default"]), "`");
    }
    Row row{child_path, TypeOf(child), req, Validation(child), child.value("description", "")};
    // The element schema of a list of objects is described under path[].
    const Json* inner = &child;
    std::string inner_path = child_path;
    if (child.value("type", "") == "array" && child.contains("items")) {
      inner = &child["items"];
      inner_path += "[]";
    }
    const size_t fields = inner->value("properties", Json::object()).size();
    if (fields > static_cast<size_t>(kMaxInlineProperties)) {
      row.description +=
          absl::StrCat(row.description.empty() ? "" : " ", "(A Kubernetes type with ", fields,
                       " fields: see the Kubernetes API reference or `kubectl "
                       "explain`.)");
      rows.push_back(std::move(row));
      continue;
    }
    rows.push_back(std::move(row));
    if (fields > 0 && depth < 10) Walk(*inner, inner_path, depth + 1, rows);
  }
}

void Table(std::ostringstream& out, const std::vector<Row>& rows) {
  out << "| field | type | required / default | validation | description |\n";
  out << "| --- | --- | --- | --- | --- |\n";
  for (const Row& r : rows) {
    out << "| `" << r.path << "` | " << Cell(r.type) << " | " << Cell(r.required_default) << " | "
        << Cell(r.validation) << " | " << Cell(r.description) << " |\n";
  }
}

}  // namespace

std::string ReferenceFileName(const Json& crd) {
  return json_access::Str(json_access::At(crd, {"spec", "names", "singular"})) + ".md";
}

std::string RenderReference(const Json& crd, const std::string& source) {
  const Json& spec = json_access::At(crd, {"spec"});
  const Json& names = json_access::At(spec, {"names"});
  Json version;
  for (const Json& v : json_access::At(spec, {"versions"})) {
    if (v.value("served", false)) {
      version = v;
      break;
    }
  }
  const std::string api_version = spec.value("group", "") + "/" + version.value("name", "");
  const Json& schema = json_access::At(version, {"schema", "openAPIV3Schema"});
  std::ostringstream out;
  out << "# " << names.value("kind", "") << " (`" << api_version << "`)\n\n";
  out << "<!-- Generated by cmd/docgen from " << source
      << "; do not edit. Regenerate: build docgen, then hack/update-docs.sh -->\n\n";
  if (schema.contains("description")) out << schema["description"].get<std::string>() << "\n\n";
  std::vector<std::string> short_names;
  for (const Json& s : names.value("shortNames", Json::array())) short_names.push_back(s);
  out << "* Scope: " << spec.value("scope", "") << "; plural `" << names.value("plural", "") << "`"
      << (short_names.empty() ? "" : ", short names `" + absl::StrJoin(short_names, "`, `") + "`")
      << "\n";
  const Json subresources = version.value("subresources", Json::object());
  std::vector<std::string> subs;
  for (const auto& [k, _] : subresources.items()) subs.push_back(k);
  if (!subs.empty()) out << "* Subresources: " << absl::StrJoin(subs, ", ") << "\n";
  const Json columns = version.value("additionalPrinterColumns", Json::array());
  if (!columns.empty()) {
    std::vector<std::string> cols;
    for (const Json& c : columns) cols.push_back(c.value("name", ""));
    out << "* `kubectl get` columns: " << absl::StrJoin(cols, ", ") << "\n";
  }
  for (const char* part : {"spec", "status"}) {
    const Json node = schema.value("properties", Json::object()).value(part, Json::object());
    if (node.empty()) continue;
    out << "\n## " << part << "\n\n";
    if (node.contains("description")) out << node["description"].get<std::string>() << "\n\n";
    for (const Json& rule : node.value("x-kubernetes-validations", Json::array())) {
      out << "* Rule: " << rule.value("message", rule.value("rule", "")) << "\n";
    }
    if (node.contains("x-kubernetes-validations")) out << "\n";
    std::vector<Row> rows;
    Walk(node, part, 0, rows);
    Table(out, rows);
  }
  return out.str();
}

}  // namespace quorum::docgen
