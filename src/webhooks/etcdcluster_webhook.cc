#include "src/webhooks/etcdcluster_webhook.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster_defaults.h"
#include "api/etcdcluster_types.h"
#include "api/etcdcluster_validation.h"
#include "api/field_error.h"
#include "src/runtime/http_server.h"
#include "src/webhooks/admission_object.h"
#include "src/webhooks/json_patch.h"

namespace quorum::webhooks {
using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionResponse MutateEtcdCluster(const AdmissionRequest& request) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  if (!request.object.is_object()) {
    return runtime::Denied("the EtcdCluster in the request is not a JSON object", 400);
  }
  kube::Json defaulted = request.object;
  api::DefaultEtcdCluster(defaulted);
  kube::Json ops = CreateJsonPatch(request.object, defaulted);
  if (ops.empty()) return runtime::Allowed();
  return runtime::Patched(std::move(ops));
}

AdmissionResponse ValidateEtcdClusterAdmission(const AdmissionRequest& request) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  const bool update = request.operation == "UPDATE" && !request.old_object.is_null();
  const std::vector<api::FieldError> errors =
      api::ValidateEtcdCluster(request.object, update ? &request.old_object : nullptr);
  AdmissionResponse response =
      errors.empty()
          ? runtime::Allowed()
          : runtime::Denied(absl::StrCat("EtcdCluster \"", ObjectName(request),
                                         "\" is invalid: ", api::JoinFieldErrors(errors)),
                            422);
  // Decoded once; the warnings read the typed spec. An object that does not
  // decode has type errors, which the validation above reported.
  if (absl::StatusOr<api::EtcdCluster> typed = api::DecodeEtcdCluster(request.object); typed.ok()) {
    response.warnings = api::EtcdClusterWarnings(typed->spec);
  }
  return response;
}

absl::Status RegisterEtcdClusterWebhooks(runtime::WebhookServer& server) {
  if (absl::Status s = server.Register(std::string(kMutateEtcdClusterPath), MutateEtcdCluster);
      !s.ok()) {
    return s;
  }
  return server.Register(std::string(kValidateEtcdClusterPath), ValidateEtcdClusterAdmission);
}

}  // namespace quorum::webhooks
