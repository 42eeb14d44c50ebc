#include "src/webhooks/etcdbackupschedule_webhook.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdbackupschedule_types.h"
#include "api/field_error.h"
#include "src/runtime/http_server.h"
#include "src/webhooks/admission_object.h"

namespace quorum::webhooks {

runtime::AdmissionResponse ValidateEtcdBackupScheduleAdmission(
    const runtime::AdmissionRequest& request) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  const std::vector<api::FieldError> errors = api::ValidateEtcdBackupSchedule(request.object);
  if (errors.empty()) return runtime::Allowed();
  return runtime::Denied(absl::StrCat("EtcdBackupSchedule \"", ObjectName(request),
                                      "\" is invalid: ", api::JoinFieldErrors(errors)),
                         422);
}

absl::Status RegisterEtcdBackupScheduleWebhooks(runtime::WebhookServer& server) {
  return server.Register(std::string(kValidateEtcdBackupSchedulePath),
                         ValidateEtcdBackupScheduleAdmission);
}

}  // namespace quorum::webhooks
