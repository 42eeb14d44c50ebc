// The validating admission webhook of EtcdBackup (etcd.aenix.io/v1alpha1) at
// the path kubebuilder would give it: api::ValidateEtcdBackup (with the stored
// object on UPDATE: the spec is immutable). A denial (HTTP 422) lists every
// field error. DELETE, CONNECT and subresources (status) pass as they are.
// Thread-safety: the handler is pure and may run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_ETCDBACKUP_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_ETCDBACKUP_WEBHOOK_H_

#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kValidateEtcdBackupPath =
    "/validate-etcd-aenix-io-v1alpha1-etcdbackup";

runtime::AdmissionResponse ValidateEtcdBackupAdmission(const runtime::AdmissionRequest& request);

// Errors: as WebhookServer::Register.
absl::Status RegisterEtcdBackupWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_ETCDBACKUP_WEBHOOK_H_
