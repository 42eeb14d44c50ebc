// Admission webhooks, the pure part: parsing the admission.k8s.io/v1
// AdmissionReview the API server POSTs to a webhook, and building the
// AdmissionReview it expects back. No I/O; the HTTPS side is WebhookServer
// (http_server.h). A handler is a function from the request to a response.
//
// Thread-safety: all functions are pure and thread-safe.
#ifndef QUORUM_SRC_RUNTIME_ADMISSION_H_
#define QUORUM_SRC_RUNTIME_ADMISSION_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"

namespace quorum::runtime {

// The `request` of an AdmissionReview.
struct AdmissionRequest {
  std::string uid;  // echoed in the response
  kube::GroupVersionKind kind;
  kube::GroupVersionResource resource;
  std::string sub_resource;
  std::string name;  // empty on CREATE with generateName
  std::string namespace_name;
  std::string operation;  // CREATE | UPDATE | DELETE | CONNECT
  kube::Json object;      // null for DELETE
  kube::Json old_object;  // null for CREATE and CONNECT
  bool dry_run = false;
  std::string username;
};

// What a handler decides. A denial's `message` reaches the user who made the
// request (prefixed by the API server with the webhook's name).
struct AdmissionResponse {
  bool allowed = true;
  std::string message;
  int32_t code = 0;    // HTTP code of a denial (the API server's reply to the user)
  std::string reason;  // e.g. "Forbidden"; empty: derived from `code`
  std::vector<std::string> warnings;
  std::optional<kube::Json> patch;  // JSON Patch (RFC 6902) ops array; mutating webhooks only
};

using AdmissionHandler = std::function<AdmissionResponse(const AdmissionRequest&)>;

AdmissionResponse Allowed();
// `code` 403 makes the user's client see Forbidden, 422 Invalid.
AdmissionResponse Denied(std::string message, int32_t code = 403);
// Allowed, applying the JSON Patch `ops` (an array of operations).
AdmissionResponse Patched(kube::Json ops);

// Parses an admission.k8s.io/v1 AdmissionReview. Errors: InvalidArgument
// naming what is wrong (not JSON, wrong apiVersion or kind, missing request
// or request.uid, a field of the wrong type, an unknown operation).
absl::StatusOr<AdmissionRequest> ParseAdmissionReview(std::string_view body);

// The admission.k8s.io/v1 AdmissionReview answering request `uid`: a patch is
// sent base64-encoded with patchType JSONPatch (only when allowed), a denial
// carries status {code, message, reason}. Never throws; strings that are not
// UTF-8 are sent with replacement characters.
std::string BuildAdmissionReviewResponse(const std::string& uid, const AdmissionResponse& response);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_ADMISSION_H_
