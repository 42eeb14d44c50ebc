#include "src/webhooks/postgres_objects_webhook.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/field_error.h"
#include "api/postgresdatabase_types.h"
#include "api/postgresrole_types.h"
#include "src/runtime/http_server.h"
#include "src/webhooks/admission_object.h"

namespace quorum::webhooks {
namespace {

using Validate = std::vector<api::FieldError> (*)(const nlohmann::json&, const nlohmann::json*);

runtime::AdmissionResponse Review(const runtime::AdmissionRequest& request, const char* kind,
                                  Validate validate) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  const bool update = request.operation == "UPDATE" && !request.old_object.is_null();
  const std::vector<api::FieldError> errors =
      validate(request.object, update ? &request.old_object : nullptr);
  if (errors.empty()) return runtime::Allowed();
  return runtime::Denied(absl::StrCat(kind, " \"", ObjectName(request),
                                      "\" is invalid: ", api::JoinFieldErrors(errors)),
                         422);
}

}  // namespace

runtime::AdmissionResponse ValidatePostgresRoleAdmission(const runtime::AdmissionRequest& request) {
  return Review(request, "PostgresRole", api::ValidatePostgresRole);
}

runtime::AdmissionResponse ValidatePostgresDatabaseAdmission(
    const runtime::AdmissionRequest& request) {
  return Review(request, "PostgresDatabase", api::ValidatePostgresDatabase);
}

absl::Status RegisterPostgresObjectWebhooks(runtime::WebhookServer& server) {
  if (absl::Status s =
          server.Register(std::string(kValidatePostgresRolePath), ValidatePostgresRoleAdmission);
      !s.ok()) {
    return s;
  }
  return server.Register(std::string(kValidatePostgresDatabasePath),
                         ValidatePostgresDatabaseAdmission);
}

}  // namespace quorum::webhooks
