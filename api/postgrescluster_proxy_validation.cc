// ValidateProxy (postgrescluster_proxy_internal.h): the rules of spec.proxy.
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/postgrescluster.h"
#include "api/postgrescluster_pgbouncer.h"
#include "api/postgrescluster_proxy_internal.h"
#include "src/base/json_access.h"

namespace quorum::api::internal {
namespace {

using Json = nlohmann::json;
using json_access::Child;
using json_access::Dump;
using json_access::Int;

constexpr char kAt[] = "spec.proxy.pgBouncer";

bool IsSettingName(const std::string& key) {
  if (key.empty() || key.size() > 63) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return key[0] < '0' || key[0] > '9';
}

// A value pgbouncer.ini can hold on one line as written.
bool IsOneLineValue(const std::string& v) {
  for (unsigned char c : v) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return v.size() <= 1024;
}

void Replicas(const Json& pgb, ErrorList& errors) {
  const Json* r = Child(&pgb, "replicas");
  if (r == nullptr) return;
  const std::optional<int64_t> n = Int(r);
  if (!n.has_value() || *n < 0 || *n > kMaxPgBouncerReplicas) {
    errors.Add(absl::StrCat(kAt, ".replicas"),
               absl::StrCat("must be a whole number of PgBouncer pods, 0 to ",
                            kMaxPgBouncerReplicas, " (got ", Dump(*r), ")"));
  }
}

void PoolMode(const Json& pgb, ErrorList& errors) {
  const Json* mode = Child(&pgb, "poolMode");
  if (mode == nullptr) return;
  const std::string m = mode->is_string() ? mode->get<std::string>() : Dump(*mode);
  if (m != "session" && m != "transaction" && m != "statement") {
    errors.Add(absl::StrCat(kAt, ".poolMode"),
               absl::StrCat("must be session, transaction or statement (got \"", m, "\")"));
  }
}

void Config(const Json& pgb, ErrorList& errors) {
  const Json* config = Child(&pgb, "config");
  if (config == nullptr) return;
  const std::string at = absl::StrCat(kAt, ".config");
  if (!config->is_object()) {
    errors.Add(at, "must be a map of pgbouncer.ini settings, e.g. {max_client_conn: \"500\"}");
    return;
  }
  if (config->size() > kMaxPgBouncerConfigKeys) {
    errors.Add(at, absl::StrCat("at most ", kMaxPgBouncerConfigKeys, " settings (got ",
                                config->size(), ")"));
  }
  for (const auto& [key, value] : config->items()) {
    const std::string field = absl::StrCat(at, ".", key);
    if (!IsSettingName(key)) {
      errors.Add(field, "is not a PgBouncer setting name: use lowercase letters, digits and '_'");
    } else if (IsPgBouncerOwnedSetting(key)) {
      errors.Add(field, absl::StrCat("is set by Quorum (", PgBouncerOwnedSettingsText(),
                                     "); remove it", key == "pool_mode" ? ": use poolMode" : ""));
    }
    if (!value.is_string()) {
      errors.Add(field, absl::StrCat("must be a string, e.g. \"100\" (got ", Dump(value), ")"));
    } else if (!IsOneLineValue(value.get<std::string>())) {
      errors.Add(field, "must be one line of at most 1024 characters, without control characters");
    }
  }
}

}  // namespace

void ValidateProxy(const Json& spec, ErrorList& errors) {
  const Json* proxy = Child(&spec, "proxy");
  if (proxy == nullptr) return;
  if (!proxy->is_object()) {
    errors.Add("spec.proxy", "must be an object, e.g. {pgBouncer: {}}");
    return;
  }
  const Json* pgb = Child(proxy, "pgBouncer");
  if (pgb == nullptr) return;
  if (!pgb->is_object()) {
    errors.Add(kAt, "must be an object, e.g. {} for a pooler with the defaults");
    return;
  }
  Replicas(*pgb, errors);
  PoolMode(*pgb, errors);
  Config(*pgb, errors);
  if (const Json* r = Child(pgb, "resources"); r != nullptr && !r->is_object()) {
    errors.Add(absl::StrCat(kAt, ".resources"),
               "must be an object, e.g. {requests: {cpu: 100m, memory: 64Mi}}");
  }
  if (const Json* image = Child(pgb, "image"); image != nullptr && !image->is_string()) {
    errors.Add(absl::StrCat(kAt, ".image"), "must be a string: an image reference, or empty");
  }
}

}  // namespace quorum::api::internal
