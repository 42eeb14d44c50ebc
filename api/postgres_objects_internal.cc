#include "api/postgres_objects_internal.h"

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"

namespace quorum::api::internal {
namespace {

using Json = nlohmann::json;

// A Kubernetes object name (DNS subdomain).
bool IsObjectName(const Json* v) {
  if (v == nullptr || !v->is_string()) return false;
  const std::string& s = v->get_ref<const std::string&>();
  if (s.empty() || s.size() > 253) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return s.front() != '-' && s.front() != '.' && s.back() != '-' && s.back() != '.';
}

std::string EffectiveName(const Json& obj) {
  const Json* name = ChildOf(ChildOf(&obj, "spec"), "name");
  if (name != nullptr && name->is_string()) return name->get<std::string>();
  const Json* meta_name = ChildOf(ChildOf(&obj, "metadata"), "name");
  return meta_name != nullptr && meta_name->is_string() ? meta_name->get<std::string>() : "";
}

constexpr char kNameRule[] =
    "1 to 63 letters, digits, '_', '-' or '.', starting with a letter or '_'";

}  // namespace

const Json* ChildOf(const Json* o, const char* key) {
  if (o == nullptr || !o->is_object()) return nullptr;
  auto it = o->find(key);
  return it == o->end() || it->is_null() ? nullptr : &*it;
}

std::string Indexed(const std::string& base, size_t i) { return absl::StrCat(base, "[", i, "]"); }

std::string CheckCommonSpec(const Json& obj, const Json* old, const std::set<std::string>& known,
                            const char* what, std::vector<FieldError>& out) {
  const Json* spec = ChildOf(&obj, "spec");
  if (spec == nullptr || !spec->is_object()) {
    out.push_back({"spec", "required"});
    return "";
  }
  if (!IsObjectName(ChildOf(spec, "cluster"))) {
    out.push_back({"spec.cluster", "name a PostgresCluster in this namespace"});
  }
  std::string name;
  const Json* spec_name = ChildOf(spec, "name");
  const std::string field = spec_name != nullptr ? "spec.name" : "metadata.name";
  if (spec_name != nullptr && !spec_name->is_string()) {
    out.push_back({"spec.name", "want a string"});
  } else {
    name = EffectiveName(obj);
    if (!IsSqlObjectName(name)) {
      out.push_back(
          {field, absl::StrCat("\"", name, "\" is not a valid ", what, " name: ", kNameRule,
                               spec_name == nullptr ? " (set spec.name)" : "")});
      name.clear();
    }
  }
  if (const Json* limit = ChildOf(spec, "connectionLimit"); limit != nullptr) {
    if (!limit->is_number_integer() || limit->get<int64_t>() < -1 ||
        limit->get<int64_t>() > 2147483647) {
      out.push_back({"spec.connectionLimit", "want an integer >= -1 (-1: no limit)"});
    }
  }
  if (const Json* policy = ChildOf(spec, "reclaimPolicy"); policy != nullptr) {
    if (!policy->is_string() || (*policy != kReclaimRetain && *policy != kReclaimDelete)) {
      out.push_back({"spec.reclaimPolicy", "want retain or delete"});
    }
  }
  for (const auto& [key, value] : spec->items()) {
    if (!known.contains(key)) out.push_back({"spec." + key, "unknown field"});
  }
  if (old != nullptr) {
    const Json* old_cluster = ChildOf(ChildOf(old, "spec"), "cluster");
    const Json* cluster = ChildOf(spec, "cluster");
    if (old_cluster != nullptr && (cluster == nullptr || *cluster != *old_cluster)) {
      out.push_back({"spec.cluster", "is immutable; create a new resource for another cluster"});
    }
    if (EffectiveName(*old) != EffectiveName(obj)) {
      out.push_back({field, absl::StrCat("the ", what, " name is immutable (was \"",
                                         EffectiveName(*old), "\"); create a new resource")});
    }
  }
  return name;
}

void CheckRoleReference(const Json* v, const std::string& field, std::vector<FieldError>& out) {
  const std::string role = v != nullptr && v->is_string() ? v->get<std::string>() : "";
  if (!IsSqlObjectName(role)) {
    out.push_back({field, absl::StrCat("\"", role, "\" is not a valid role name: ", kNameRule)});
  } else if (std::string why = ReservedRoleReason(role); !why.empty()) {
    out.push_back({field, why});
  }
}

void DecodeObjectMeta(Decoder& d, const Json& obj, ObjectMeta& out) {
  const Json* meta = d.Member(&obj, "", "metadata");
  d.String(meta, "metadata", "name", out.name);
  d.String(meta, "metadata", "namespace", out.ns);
  d.String(meta, "metadata", "uid", out.uid);
  d.Int64(meta, "metadata", "generation", out.generation);
  d.String(meta, "metadata", "creationTimestamp", out.creation_timestamp);
  out.deleting = d.Member(meta, "metadata", "deletionTimestamp") != nullptr;
}

void DecodeObjectStatus(Decoder& d, const Json& obj, PostgresObjectStatus& out) {
  const Json* status = d.Member(&obj, "", "status");
  d.Int64(status, "status", "observedGeneration", out.observed_generation);
  d.Bool(status, "status", "applied", out.applied);
  d.String(status, "status", "message", out.message);
  d.String(status, "status", "secretName", out.secret_name);
  d.String(status, "status", "certificateSecret", out.certificate_secret);
  d.String(status, "status", "certificateNotAfter", out.certificate_not_after);
  Json grants;
  d.Array(status, "status", "grants", grants);
  for (size_t i = 0; grants.is_array() && i < grants.size(); ++i) {
    const std::string at = Indexed("status.grants", i);
    AppliedGrant g;
    d.String(&grants[i], at, "role", g.role);
    d.String(&grants[i], at, "schema", g.schema);
    d.StringList(&grants[i], at, "privileges", g.privileges);
    out.grants.push_back(std::move(g));
  }
  DecodeStatusConditions(d, status, out.conditions);
}

}  // namespace quorum::api::internal
