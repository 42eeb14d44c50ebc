// ValidatePostgresDatabase and ParsePostgresDatabase (postgresdatabase_types.h).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/postgres_objects_internal.h"
#include "api/postgresdatabase_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;
using internal::ChildOf;
using internal::Indexed;

std::string StrOf(const Json* v) {
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

void CheckSchemaName(const Json* v, const std::string& field, std::vector<FieldError>& out) {
  const std::string name = StrOf(v);
  if (!IsSqlObjectName(name)) {
    out.push_back({field, absl::StrCat("\"", name,
                                       "\" is not a valid schema name: 1 to 63 letters, digits, "
                                       "'_', '-' or '.', starting with a letter or '_'")});
  } else if (absl::AsciiStrToLower(name).starts_with("pg_") || name == "information_schema") {
    out.push_back({field, absl::StrCat("\"", name, "\" is reserved by PostgreSQL")});
  }
}

void CheckExtensions(const Json* list, std::vector<FieldError>& out) {
  if (list == nullptr) return;
  if (!list->is_array()) {
    out.push_back({"spec.extensions", "must be a list of {name, schema}"});
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string base = Indexed("spec.extensions", i);
    const Json& e = (*list)[i];
    const std::string name = StrOf(ChildOf(&e, "name"));
    if (!IsAllowedExtension(name)) {
      std::vector<std::string> names(AllowedExtensions().begin(), AllowedExtensions().end());
      out.push_back({base + ".name", absl::StrCat("\"", name,
                                                  "\" is not an extension the images ship; "
                                                  "want one of ",
                                                  absl::StrJoin(names, ", "))});
    } else if (!seen.insert(name).second) {
      out.push_back({base + ".name", absl::StrCat("duplicate \"", name, "\"")});
    }
    if (const Json* schema = ChildOf(&e, "schema"); schema != nullptr) {
      CheckSchemaName(schema, base + ".schema", out);
    }
  }
}

void CheckSchemas(const Json* list, std::vector<FieldError>& out) {
  if (list == nullptr) return;
  if (!list->is_array()) {
    out.push_back({"spec.schemas", "must be a list of {name, owner}"});
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string base = Indexed("spec.schemas", i);
    const Json& s = (*list)[i];
    CheckSchemaName(ChildOf(&s, "name"), base + ".name", out);
    if (!seen.insert(StrOf(ChildOf(&s, "name"))).second) {
      out.push_back({base + ".name", "duplicate schema"});
    }
    if (const Json* owner = ChildOf(&s, "owner"); owner != nullptr) {
      internal::CheckRoleReference(owner, base + ".owner", out);
    }
  }
}

void CheckGrants(const Json* list, std::vector<FieldError>& out) {
  if (list == nullptr) return;
  if (!list->is_array()) {
    out.push_back({"spec.grants", "must be a list of {role, privileges, schema}"});
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string base = Indexed("spec.grants", i);
    const Json& g = (*list)[i];
    internal::CheckRoleReference(ChildOf(&g, "role"), base + ".role", out);
    const Json* schema = ChildOf(&g, "schema");
    if (schema != nullptr) CheckSchemaName(schema, base + ".schema", out);
    std::span<const std::string_view> allowed =
        schema != nullptr ? SchemaPrivileges() : DatabasePrivileges();
    const std::string allowed_text =
        absl::StrJoin(std::vector<std::string>(allowed.begin(), allowed.end()), ", ");
    const Json* privileges = ChildOf(&g, "privileges");
    if (privileges == nullptr || !privileges->is_array() || privileges->empty()) {
      out.push_back({base + ".privileges", "want a list of " + allowed_text});
      continue;
    }
    for (size_t j = 0; j < privileges->size(); ++j) {
      const std::string p = StrOf(&(*privileges)[j]);
      if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) {
        out.push_back({Indexed(base + ".privileges", j),
                       absl::StrCat("\"", p, "\" is not a privilege on a ",
                                    schema != nullptr ? "schema" : "database", "; want one of ",
                                    allowed_text)});
      }
    }
    if (!g.is_object()) continue;
    for (const auto& [key, value] : g.items()) {
      if (key != "role" && key != "privileges" && key != "schema") {
        out.push_back({base + "." + key, "unknown field"});
      }
    }
  }
}

}  // namespace

std::vector<FieldError> ValidatePostgresDatabase(const Json& obj, const Json* old) {
  std::vector<FieldError> out;
  const std::string name =
      internal::CheckCommonSpec(obj, old,
                                {"cluster", "name", "owner", "extensions", "schemas",
                                 "connectionLimit", "grants", "reclaimPolicy"},
                                "database", out);
  const Json* spec = ChildOf(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) return out;
  if (name == "postgres" || name == "template0" || name == "template1") {
    out.push_back(
        {ChildOf(spec, "name") != nullptr ? "spec.name" : "metadata.name",
         absl::StrCat("\"", name, "\" is one of PostgreSQL's own databases; choose another name")});
  }
  if (const Json* owner = ChildOf(spec, "owner"); owner != nullptr) {
    internal::CheckRoleReference(owner, "spec.owner", out);
  }
  CheckExtensions(ChildOf(spec, "extensions"), out);
  CheckSchemas(ChildOf(spec, "schemas"), out);
  CheckGrants(ChildOf(spec, "grants"), out);
  return out;
}

absl::StatusOr<PostgresDatabase> ParsePostgresDatabase(const Json& obj) {
  if (!obj.is_object()) {
    return absl::InvalidArgumentError("a PostgresDatabase must be a JSON object");
  }
  if (std::vector<FieldError> errors = ValidatePostgresDatabase(obj, nullptr); !errors.empty()) {
    return absl::InvalidArgumentError(JoinFieldErrors(errors));
  }
  internal::Decoder d;
  PostgresDatabase out;
  internal::DecodeObjectMeta(d, obj, out.metadata);
  const Json* spec = d.Member(&obj, "", "spec");
  PostgresDatabaseSpec& s = out.spec;
  d.String(spec, "spec", "cluster", s.cluster);
  s.name = out.metadata.name;
  d.String(spec, "spec", "name", s.name);
  d.String(spec, "spec", "owner", s.owner);
  d.Int32(spec, "spec", "connectionLimit", s.connection_limit);
  d.String(spec, "spec", "reclaimPolicy", s.reclaim_policy);
  auto list = [&](const char* key) {
    const Json* l = ChildOf(spec, key);
    return l != nullptr ? *l : Json::array();
  };
  auto str = [](const Json& o, const char* key) { return StrOf(ChildOf(&o, key)); };
  for (const Json& e : list("extensions")) {
    s.extensions.push_back({.name = str(e, "name"), .schema = str(e, "schema")});
  }
  for (const Json& e : list("schemas")) {
    s.schemas.push_back({.name = str(e, "name"), .owner = str(e, "owner")});
  }
  for (const Json& g : list("grants")) {
    DatabaseGrant grant{.role = str(g, "role"), .privileges = {}, .schema = str(g, "schema")};
    for (const Json& p : *ChildOf(&g, "privileges")) grant.privileges.push_back(StrOf(&p));
    s.grants.push_back(std::move(grant));
  }
  internal::DecodeObjectStatus(d, obj, out.status);
  if (absl::Status st = d.ToStatus(); !st.ok()) return st;
  return out;
}

}  // namespace quorum::api
