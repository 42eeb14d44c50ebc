// The validating admission webhook of EtcdBackupSchedule
// (etcd.aenix.io/v1alpha1) at the path kubebuilder would give it:
// api::ValidateEtcdBackupSchedule — a cron schedule that parses and fires, a
// valid destination, history limits >= 0, keepLast >= 1, keepWithin a positive
// duration. A denial (HTTP 422) lists every field error. DELETE, CONNECT and
// subresources (status) pass as they are.
// Thread-safety: the handler is pure and may run concurrently.
#ifndef QUORUM_SRC_WEBHOOKS_ETCDBACKUPSCHEDULE_WEBHOOK_H_
#define QUORUM_SRC_WEBHOOKS_ETCDBACKUPSCHEDULE_WEBHOOK_H_

#include <string_view>

#include "absl/status/status.h"
#include "src/runtime/admission.h"

namespace quorum::runtime {
class WebhookServer;
}  // namespace quorum::runtime

namespace quorum::webhooks {

inline constexpr std::string_view kValidateEtcdBackupSchedulePath =
    "/validate-etcd-aenix-io-v1alpha1-etcdbackupschedule";

runtime::AdmissionResponse ValidateEtcdBackupScheduleAdmission(
    const runtime::AdmissionRequest& request);

// Errors: as WebhookServer::Register.
absl::Status RegisterEtcdBackupScheduleWebhooks(runtime::WebhookServer& server);

}  // namespace quorum::webhooks

#endif  // QUORUM_SRC_WEBHOOKS_ETCDBACKUPSCHEDULE_WEBHOOK_H_
