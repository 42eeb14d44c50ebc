#include "api/decode.h"

#include "src/base/json_access.h"

namespace quorum::api::internal {

using json_access::Child;
using json_access::Dump;
using json_access::Int;

const nlohmann::json* Decoder::Member(const Json* o, const std::string& path,
                                      const std::string& key) {
  if (o == nullptr) return nullptr;
  if (!o->is_object()) {
    Fail(path, "want an object, got " + Dump(*o));
    return nullptr;
  }
  return Child(o, key);
}

const nlohmann::json* Decoder::Typed(const Json* o, const std::string& path, const std::string& key,
                                     Json::value_t type, const char* want) {
  const Json* v = Member(o, path, key);
  if (v == nullptr) return nullptr;
  const bool ok =
      type == Json::value_t::number_integer ? v->is_number_integer() : v->type() == type;
  if (!ok) {
    Fail(Join(path, key), std::string("want ") + want + ", got " + Dump(*v));
    return nullptr;
  }
  return v;
}

void Decoder::String(const Json* o, const std::string& path, const std::string& key,
                     std::string& out) {
  if (const Json* v = Typed(o, path, key, Json::value_t::string, "a string")) {
    out = v->get<std::string>();
  }
}

void Decoder::Bool(const Json* o, const std::string& path, const std::string& key, bool& out) {
  if (const Json* v = Typed(o, path, key, Json::value_t::boolean, "true or false")) {
    out = v->get<bool>();
  }
}

void Decoder::Int64(const Json* o, const std::string& path, const std::string& key, int64_t& out) {
  if (const Json* v = Typed(o, path, key, Json::value_t::number_integer, "an integer")) {
    std::optional<int64_t> n = Int(v);
    if (!n) {
      Fail(Join(path, key), "out of range: " + Dump(*v));
      return;
    }
    out = *n;
  }
}

void Decoder::Int32(const Json* o, const std::string& path, const std::string& key, int32_t& out) {
  int64_t n = out;
  Int64(o, path, key, n);
  if (n < INT32_MIN || n > INT32_MAX) {
    Fail(Join(path, key), "out of range for int32: " + std::to_string(n));
    return;
  }
  out = static_cast<int32_t>(n);
}

void Decoder::StringMap(const Json* o, const std::string& path, const std::string& key,
                        std::map<std::string, std::string>& out) {
  const Json* m = Typed(o, path, key, Json::value_t::object, "an object of strings");
  if (m == nullptr) return;
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (it->is_string()) {
      out[it.key()] = it->get<std::string>();
    } else if (!it->is_null()) {
      Fail(Join(path, key) + "[" + it.key() + "]", "want a string, got " + Dump(*it));
    }
  }
}

void Decoder::Object(const Json* o, const std::string& path, const std::string& key, Json& out) {
  if (const Json* v = Typed(o, path, key, Json::value_t::object, "an object")) out = *v;
}

void Decoder::Array(const Json* o, const std::string& path, const std::string& key, Json& out) {
  if (const Json* v = Typed(o, path, key, Json::value_t::array, "a list")) out = *v;
}

void Decoder::StringList(const Json* o, const std::string& path, const std::string& key,
                         std::vector<std::string>& out) {
  const Json* list = Typed(o, path, key, Json::value_t::array, "a list of strings");
  if (list == nullptr) return;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& v = (*list)[i];
    if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else {
      Fail(Join(path, key) + "[" + std::to_string(i) + "]", "want a string, got " + Dump(v));
    }
  }
}

void Decoder::Fail(std::string field, std::string message) {
  errors_.push_back({std::move(field), std::move(message)});
}

absl::Status Decoder::ToStatus() const {
  if (errors_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(JoinFieldErrors(errors_));
}

void DecodeStatusConditions(Decoder& d, const nlohmann::json* status, std::vector<Condition>& out) {
  const nlohmann::json* conditions = d.Member(status, "status", "conditions");
  for (size_t i = 0; conditions != nullptr && conditions->is_array() && i < conditions->size();
       ++i) {
    const nlohmann::json& c = (*conditions)[i];
    if (!c.is_object()) continue;
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    Condition& o = out.emplace_back();
    d.String(&c, at, "type", o.type);
    d.String(&c, at, "status", o.status);
    d.String(&c, at, "reason", o.reason);
    d.String(&c, at, "message", o.message);
    d.Int64(&c, at, "observedGeneration", o.observed_generation);
    d.String(&c, at, "lastTransitionTime", o.last_transition_time);
  }
}

}  // namespace quorum::api::internal
