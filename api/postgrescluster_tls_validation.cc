// ValidateTls (postgrescluster_validation_internal.h): the rules of spec.tls —
// Secret names, and the one combination that cannot work (a certificate of
// your own and a CA to issue one).
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster_validation.h"
#include "api/postgrescluster_validation_internal.h"
#include "src/base/json_access.h"

namespace quorum::api::internal {

using json_access::Child;
using json_access::Dump;

namespace {

// The string at tls.<key> ("" when absent); a non-string or a bad name is
// an error naming spec.tls.<key>.
std::string SecretField(const nlohmann::json* tls, const char* key, ErrorList& errors) {
  const nlohmann::json* v = Child(tls, key);
  if (v == nullptr) return "";
  const std::string field = absl::StrCat("spec.tls.", key);
  if (!v->is_string()) {
    errors.Add(field, absl::StrCat("must be a Secret name (got ", Dump(*v), ")"));
    return "";
  }
  const std::string name = v->get<std::string>();
  if (!name.empty() && !IsDns1123Subdomain(name)) {
    errors.Add(field, absl::StrCat("\"", name,
                                   "\" is not a valid Secret name; use lowercase letters, "
                                   "digits, '-' and '.'"));
  }
  return name;
}

void BoolField(const nlohmann::json* parent, const char* key, const std::string& field,
               ErrorList& errors) {
  const nlohmann::json* v = Child(parent, key);
  if (v != nullptr && !v->is_boolean()) {
    errors.Add(field, absl::StrCat("must be true or false (got ", Dump(*v), ")"));
  }
}

}  // namespace

void ValidateTls(const nlohmann::json& spec, ErrorList& errors) {
  const nlohmann::json* tls = Child(&spec, "tls");
  if (tls == nullptr) return;
  if (!tls->is_object()) {
    errors.Add("spec.tls", "must be an object, e.g. {caSecret: my-ca}");
    return;
  }
  const std::string custom = SecretField(tls, "customSecret", errors);
  const std::string ca = SecretField(tls, "caSecret", errors);
  BoolField(tls, "allowPlaintext", "spec.tls.allowPlaintext", errors);
  if (!custom.empty() && !ca.empty()) {
    errors.Add("spec.tls.caSecret",
               "cannot be combined with spec.tls.customSecret: either Quorum issues the "
               "certificate from your CA (caSecret) or you give the certificate "
               "(customSecret, with ca.crt, tls.crt and tls.key)");
  }
}

}  // namespace quorum::api::internal
