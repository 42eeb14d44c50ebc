#include "src/runtime/handler.h"

#include "src/kube/resource.h"

namespace quorum::runtime {
namespace {

const Json& Meta(const Json& object) {
  static const Json kEmpty = Json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::string MetaString(const Json& object, const char* field) {
  const Json& meta = Meta(object);
  auto it = meta.find(field);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

Json MetaValue(const Json& object, const char* field) {
  const Json& meta = Meta(object);
  auto it = meta.find(field);
  return it != meta.end() ? *it : Json();
}

// Whether two versions of an object differ in anything but
// metadata.resourceVersion (which every write bumps) and, when
// `ignore_status`, their status.
bool Differs(const Json& o, const Json& n, bool ignore_status) {
  if (!o.is_object() || !n.is_object()) return o != n;
  auto counted = [&](const Json& j) {
    return j.size() - (ignore_status && j.contains("status") ? 1 : 0);
  };
  if (counted(o) != counted(n)) return true;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (ignore_status && it.key() == "status") continue;
    auto old_it = o.find(it.key());
    if (old_it == o.end()) return true;
    if (it.key() != "metadata" || !it->is_object() || !old_it->is_object()) {
      if (*it != *old_it) return true;
      continue;
    }
    const Json& om = *old_it;
    auto counted_meta = [](const Json& m) {
      return m.size() - (m.contains("resourceVersion") ? 1 : 0);
    };
    if (counted_meta(om) != counted_meta(*it)) return true;
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (m.key() == "resourceVersion") continue;
      auto om_it = om.find(m.key());
      if (om_it == om.end() || *om_it != *m) return true;
    }
  }
  return false;
}

}  // namespace

MapFunc EnqueueRequestForObject() {
  return [](const Json& object) {
    return std::vector<Request>{{MetaString(object, "namespace"), MetaString(object, "name")}};
  };
}

MapFunc EnqueueRequestForOwner(std::string owner_group, std::string owner_kind,
                               bool only_controller) {
  return [owner_group, owner_kind, only_controller](const Json& object) {
    std::vector<Request> out;
    const Json refs = MetaValue(object, "ownerReferences");
    if (!refs.is_array()) return out;
    for (const Json& ref : refs) {
      if (!ref.is_object()) continue;
      if (only_controller && !ref.value("controller", false)) continue;
      if (ref.value("kind", "") != owner_kind) continue;
      if (kube::SplitApiVersion(ref.value("apiVersion", "")).first != owner_group) continue;
      out.push_back({MetaString(object, "namespace"), ref.value("name", "")});
    }
    return out;
  };
}

MapFunc EnqueueRequestsFromIndex(const Store& store, std::string index,
                                 std::function<std::vector<std::string>(const Json&)> values) {
  return [&store, index, values](const Json& object) {
    std::vector<Request> out;
    for (const std::string& v : values(object)) {
      for (const ObjectPtr& ref : store.ByIndex(index, v)) {
        out.push_back({MetaString(*ref, "namespace"), MetaString(*ref, "name")});
      }
    }
    return out;
  };
}

Predicate GenerationChangedPredicate() {
  return {.update = [](const Json& o, const Json& n) {
    return MetaValue(o, "generation") != MetaValue(n, "generation");
  }};
}

Predicate ResourceVersionChangedPredicate() {
  return {.update = [](const Json& o, const Json& n) {
    return MetaString(o, "resourceVersion") != MetaString(n, "resourceVersion");
  }};
}

Predicate LabelChangedPredicate() {
  return {.update = [](const Json& o, const Json& n) {
    return MetaValue(o, "labels") != MetaValue(n, "labels");
  }};
}

Predicate ContentChangedPredicate() {
  return {.update = [](const Json& o, const Json& n) { return Differs(o, n, false); }};
}

Predicate IgnoreStatusOnlyChangesPredicate() {
  return {.update = [](const Json& o, const Json& n) { return Differs(o, n, true); }};
}

}  // namespace quorum::runtime
