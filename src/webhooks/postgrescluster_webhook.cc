#include "src/webhooks/postgrescluster_webhook.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etcdcluster_types.h"
#include "api/field_error.h"
#include "api/postgrescluster_dcs_security.h"
#include "api/postgrescluster_defaults.h"
#include "api/postgrescluster_owned_config.h"
#include "api/postgrescluster_types.h"
#include "api/postgrescluster_validation.h"
#include "src/runtime/http_server.h"
#include "src/webhooks/admission_object.h"
#include "src/webhooks/json_patch.h"

namespace quorum::webhooks {

using runtime::AdmissionRequest;
using runtime::AdmissionResponse;

AdmissionResponse MutatePostgresCluster(const AdmissionRequest& request) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  if (!request.object.is_object()) {
    return runtime::Denied("the PostgresCluster in the request is not a JSON object", 400);
  }
  kube::Json defaulted = request.object;
  api::DefaultPostgresCluster(defaulted);
  kube::Json ops = CreateJsonPatch(request.object, defaulted);
  if (ops.empty()) return runtime::Allowed();
  return runtime::Patched(std::move(ops));
}

AdmissionResponse ValidatePostgresClusterAdmission(const AdmissionRequest& request,
                                                   const EtcdClusterGetter& etcd_clusters) {
  if (!IsObjectWrite(request)) return runtime::Allowed();
  const bool update = request.operation == "UPDATE" && !request.old_object.is_null();
  const kube::Json* old = update ? &request.old_object : nullptr;
  std::vector<api::FieldError> errors = api::ValidatePostgresCluster(request.object, old);
  for (api::FieldError& e : api::ValidateSwitchoverTarget(request.object, old)) {
    errors.push_back(std::move(e));
  }
  for (api::FieldError& e : api::ValidateOwnedDynamicConfiguration(request.object, old)) {
    errors.push_back(std::move(e));
  }
  AdmissionResponse response =
      errors.empty()
          ? runtime::Allowed()
          : runtime::Denied(absl::StrCat("PostgresCluster \"", ObjectName(request),
                                         "\" is invalid: ", api::JoinFieldErrors(errors)),
                            422);
  // Decoded once; the warnings read the typed spec. An object that does not
  // decode has type errors, which the validation above reported.
  if (absl::StatusOr<api::PostgresCluster> typed = api::DecodePostgresCluster(request.object);
      typed.ok()) {
    response.warnings = api::PostgresClusterWarnings(typed->spec);
    if (const std::string& ref = typed->spec.patroni.dcs.etcd.cluster_ref;
        etcd_clusters && typed->spec.patroni.dcs.UsesEtcd() && !ref.empty()) {
      std::shared_ptr<const kube::Json> stored = etcd_clusters(request.namespace_name, ref);
      absl::StatusOr<api::EtcdCluster> etcd =
          stored ? api::DecodeEtcdCluster(*stored) : absl::NotFoundError(ref);
      if (etcd.ok()) {
        api::DcsSecurity security = api::DcsSecurityOf(typed->spec, &*etcd);
        if (!security.secure) response.warnings.push_back(std::move(security.message));
      }
    }
  }
  return response;
}

absl::Status RegisterPostgresClusterWebhooks(runtime::WebhookServer& server,
                                             EtcdClusterGetter etcd_clusters) {
  if (absl::Status s =
          server.Register(std::string(kMutatePostgresClusterPath), MutatePostgresCluster);
      !s.ok()) {
    return s;
  }
  return server.Register(std::string(kValidatePostgresClusterPath),
                         [etcd_clusters = std::move(etcd_clusters)](const AdmissionRequest& r) {
                           return ValidatePostgresClusterAdmission(r, etcd_clusters);
                         });
}

}  // namespace quorum::webhooks
