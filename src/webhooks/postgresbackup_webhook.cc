#include "src/webhooks/postgresbackup_webhook.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/field_error.h"
#include "api/postgresbackup_types.h"
#include "src/runtime/http_server.h"
#include "src/webhooks/admission_object.h"

namespace quorum::webhooks {

runtime::AdmissionResponse ValidatePostgresBackupAdmission(
    const runtime::AdmissionRequest& request) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  const bool update = request.operation == "UPDATE" && !request.old_object.is_null();
  const std::vector<api::FieldError> errors =
      api::ValidatePostgresBackup(request.object, update ? &request.old_object : nullptr);
  if (errors.empty()) return runtime::Allowed();
  return runtime::Denied(absl::StrCat("PostgresBackup \"", ObjectName(request),
                                      "\" is invalid: ", api::JoinFieldErrors(errors)),
                         422);
}

absl::Status RegisterPostgresBackupWebhooks(runtime::WebhookServer& server) {
  return server.Register(std::string(kValidatePostgresBackupPath), ValidatePostgresBackupAdmission);
}

}  // namespace quorum::webhooks
