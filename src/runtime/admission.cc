#include "src/runtime/admission.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "src/kube/errors.h"

namespace quorum::runtime {
namespace {

constexpr char kApiVersion[] = "admission.k8s.io/v1";

using Json = kube::Json;

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Reads an optional string member; absent or null gives "".
absl::Status OptionalString(const Json& parent, const char* key, const std::string& where,
                            std::string& out) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, key, " must be a string"));
  }
  out = it->get<std::string>();
  return absl::OkStatus();
}

absl::Status RequiredString(const Json& parent, const char* key, const std::string& where,
                            std::string& out) {
  if (absl::Status s = OptionalString(parent, key, where, out); !s.ok()) return s;
  if (out.empty()) return absl::InvalidArgumentError(absl::StrCat("missing ", where, key));
  return absl::OkStatus();
}

// `{group, version, <last>}` objects: request.kind and request.resource.
absl::Status Triple(const Json& request, const char* key, const char* last, std::string& group,
                    std::string& version, std::string& third) {
  auto it = request.find(key);
  if (it == request.end() || !it->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("missing request.", key));
  }
  const std::string where = absl::StrCat("request.", key, ".");
  if (absl::Status s = OptionalString(*it, "group", where, group); !s.ok()) return s;
  if (absl::Status s = RequiredString(*it, "version", where, version); !s.ok()) return s;
  return RequiredString(*it, last, where, third);
}

}  // namespace

AdmissionResponse Allowed() { return AdmissionResponse{}; }

AdmissionResponse Denied(std::string message, int32_t code) {
  AdmissionResponse r;
  r.allowed = false;
  r.message = std::move(message);
  r.code = code;
  return r;
}

AdmissionResponse Patched(kube::Json ops) {
  AdmissionResponse r;
  r.patch = std::move(ops);
  return r;
}

absl::StatusOr<AdmissionRequest> ParseAdmissionReview(std::string_view body) {
  const Json review = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (review.is_discarded()) return absl::InvalidArgumentError("AdmissionReview is not JSON");
  if (!review.is_object()) {
    return absl::InvalidArgumentError("AdmissionReview is not a JSON object");
  }
  std::string api_version, kind;
  if (absl::Status s = OptionalString(review, "apiVersion", "", api_version); !s.ok()) return s;
  if (api_version != kApiVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("AdmissionReview apiVersion is \"", api_version, "\", want ", kApiVersion));
  }
  if (absl::Status s = OptionalString(review, "kind", "", kind); !s.ok()) return s;
  if (kind != "AdmissionReview") {
    return absl::InvalidArgumentError(absl::StrCat("kind is \"", kind, "\", want AdmissionReview"));
  }
  auto req = review.find("request");
  if (req == review.end() || !req->is_object()) {
    return absl::InvalidArgumentError("AdmissionReview has no request object");
  }

  AdmissionRequest out;
  const std::string where = "request.";
  if (absl::Status s = RequiredString(*req, "uid", where, out.uid); !s.ok()) return s;
  if (absl::Status s =
          Triple(*req, "kind", "kind", out.kind.group, out.kind.version, out.kind.kind);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Triple(*req, "resource", "resource", out.resource.group,
                              out.resource.version, out.resource.resource);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = OptionalString(*req, "subResource", where, out.sub_resource); !s.ok()) {
    return s;
  }
  if (absl::Status s = OptionalString(*req, "name", where, out.name); !s.ok()) return s;
  if (absl::Status s = OptionalString(*req, "namespace", where, out.namespace_name); !s.ok()) {
    return s;
  }
  if (absl::Status s = RequiredString(*req, "operation", where, out.operation); !s.ok()) return s;
  if (out.operation != "CREATE" && out.operation != "UPDATE" && out.operation != "DELETE" &&
      out.operation != "CONNECT") {
    return absl::InvalidArgumentError(absl::StrCat("request.operation \"", out.operation,
                                                   "\" is not one of CREATE, UPDATE, ",
                                                   "DELETE, CONNECT"));
  }
  const std::pair<const char*, Json*> objects[] = {{"object", &out.object},
                                                   {"oldObject", &out.old_object}};
  for (const auto& [key, field] : objects) {
    auto it = req->find(key);
    if (it == req->end() || it->is_null()) continue;
    if (!it->is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("request.", key, " must be an object"));
    }
    *field = *it;
  }
  if (auto it = req->find("dryRun"); it != req->end() && !it->is_null()) {
    if (!it->is_boolean()) return absl::InvalidArgumentError("request.dryRun must be a boolean");
    out.dry_run = it->get<bool>();
  }
  if (auto it = req->find("userInfo"); it != req->end() && !it->is_null()) {
    if (!it->is_object()) return absl::InvalidArgumentError("request.userInfo must be an object");
    if (absl::Status s = OptionalString(*it, "username", "request.userInfo.", out.username);
        !s.ok()) {
      return s;
    }
  }
  return out;
}

std::string BuildAdmissionReviewResponse(const std::string& uid,
                                         const AdmissionResponse& response) {
  Json r = {{"uid", uid}, {"allowed", response.allowed}};
  if (!response.allowed || !response.message.empty()) {
    Json status = {{"status", response.allowed ? "Success" : "Failure"}};
    if (!response.message.empty()) status["message"] = response.message;
    const int32_t code = response.code != 0 ? response.code : (response.allowed ? 200 : 403);
    status["code"] = code;
    const std::string reason =
        response.reason.empty() ? kube::ReasonForHttpCode(code) : response.reason;
    if (!response.allowed && !reason.empty()) status["reason"] = reason;
    r["status"] = std::move(status);
  }
  if (!response.warnings.empty()) r["warnings"] = response.warnings;
  if (response.allowed && response.patch.has_value()) {
    r["patchType"] = "JSONPatch";
    r["patch"] = absl::Base64Escape(Dump(*response.patch));
  }
  return Dump(Json{{"apiVersion", kApiVersion}, {"kind", "AdmissionReview"}, {"response", r}});
}

}  // namespace quorum::runtime
