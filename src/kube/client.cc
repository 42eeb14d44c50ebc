#include "src/kube/client.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "src/base/json_access.h"
#include "src/kube/errors.h"

namespace quorum::kube {
namespace {

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/json";
}

std::string_view PolicyName(PropagationPolicy p) {
  switch (p) {
    case PropagationPolicy::kForeground:
      return "Foreground";
    case PropagationPolicy::kBackground:
      return "Background";
    case PropagationPolicy::kOrphan:
      return "Orphan";
    case PropagationPolicy::kDefault:
      break;
  }
  return "";
}

// metadata.name of an object, or an InvalidArgument naming what is missing.
absl::StatusOr<std::string> NameOf(const Json& object) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object() ||
      !object["metadata"].contains("name") || !object["metadata"]["name"].is_string() ||
      object["metadata"]["name"].get_ref<const std::string&>().empty()) {
    return absl::InvalidArgumentError("object has no metadata.name");
  }
  return object["metadata"]["name"].get<std::string>();
}

}  // namespace

std::string DumpJson(const Json& object) {
  return object.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(const RestConfig& config, Clock& clock) {
  absl::StatusOr<std::unique_ptr<Transport>> t = Transport::Create(config, clock);
  if (!t.ok()) return t.status();
  return std::unique_ptr<Client>(new Client(*std::move(t), clock));
}

Client::Client(std::unique_ptr<Transport> transport, Clock& clock)
    : transport_(std::move(transport)),
      clock_(clock),
      limiter_(transport_->config().qps, transport_->config().burst, clock) {}

absl::StatusOr<Json> Client::Send(std::string_view verb, std::string_view resource, HttpRequest req,
                                  bool discard_body) {
  limiter_.Wait();
  const absl::Time start = clock_.Now();
  absl::StatusOr<HttpResponse> resp = transport_->Do(req);
  if (observer_) {
    observer_({verb, resource, resp.ok() ? resp->code : 0, clock_.Now() - start});
  }
  if (!resp.ok()) return resp.status();
  absl::Status status = StatusFromResponse(resp->code, resp->body, resp->retry_after);
  if (!status.ok()) return status;
  if (resp->body.empty() || discard_body) return Json::object();
  Json parsed = Json::parse(resp->body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InternalError(absl::StrCat("malformed response from API server to ", req.method,
                                            " ", req.path, ": body is not valid JSON (",
                                            resp->body.size(), " bytes)"));
  }
  return parsed;
}

absl::StatusOr<Json> Client::Get(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, std::string_view subresource) {
  return Send("get", gvr.resource, {.path = ResourcePath(gvr, ns, name, subresource)});
}

absl::StatusOr<Json> Client::List(const GroupVersionResource& gvr, std::string_view ns,
                                  const ListOptions& options) {
  return Send("list", gvr.resource,
              {.path = ResourcePath(gvr, ns) + EncodeQuery(ListQuery(options, false))});
}

absl::StatusOr<Json> Client::ListAll(const GroupVersionResource& gvr, std::string_view ns,
                                     ListOptions options) {
  absl::StatusOr<Json> first = List(gvr, ns, options);
  if (!first.ok()) return first;
  Json result = *std::move(first);
  if (!result.contains("items") || !result["items"].is_array()) result["items"] = Json::array();
  for (;;) {
    const Json& meta = result.value("metadata", Json::object());
    const std::string cont = meta.is_object() ? meta.value("continue", "") : "";
    if (cont.empty()) break;
    options.continue_token = cont;
    options.resource_version.clear();  // the continue token carries the snapshot
    options.resource_version_match.clear();
    absl::StatusOr<Json> page = List(gvr, ns, options);
    if (!page.ok()) return page;
    if (auto items = page->find("items"); items != page->end() && items->is_array()) {
      for (Json& item : *items) result["items"].push_back(std::move(item));
    }
    result["metadata"]["continue"] = page->value("metadata", Json::object()).value("continue", "");
    if (const Json* left = json_access::Path(&*page, {"metadata", "remainingItemCount"})) {
      result["metadata"]["remainingItemCount"] = *left;
    }
  }
  result["metadata"].erase("continue");
  result["metadata"].erase("remainingItemCount");
  return result;
}

absl::StatusOr<Json> Client::Create(const GroupVersionResource& gvr, std::string_view ns,
                                    const Json& object, const WriteOptions& options) {
  QueryParams q;
  q.emplace_back("fieldManager",
                 options.field_manager.empty() ? field_manager_ : options.field_manager);
  if (options.dry_run) q.emplace_back("dryRun", "All");
  return Send(
      "create", gvr.resource,
      {.method = "POST", .path = ResourcePath(gvr, ns) + EncodeQuery(q), .body = DumpJson(object)},
      options.discard_response);
}

absl::StatusOr<Json> Client::CreateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                               std::string_view name, std::string_view subresource,
                                               const Json& object, const WriteOptions& options) {
  QueryParams q;
  if (options.dry_run) q.emplace_back("dryRun", "All");
  return Send("create", gvr.resource,
              {.method = "POST",
               .path = ResourcePath(gvr, ns, name, subresource) + EncodeQuery(q),
               .body = DumpJson(object)});
}

absl::StatusOr<Json> Client::Update(const GroupVersionResource& gvr, std::string_view ns,
                                    const Json& object, const WriteOptions& options) {
  absl::StatusOr<std::string> name = NameOf(object);
  if (!name.ok()) return name.status();
  QueryParams q;
  q.emplace_back("fieldManager",
                 options.field_manager.empty() ? field_manager_ : options.field_manager);
  if (options.dry_run) q.emplace_back("dryRun", "All");
  return Send("update", gvr.resource,
              {.method = "PUT",
               .path = ResourcePath(gvr, ns, *name) + EncodeQuery(q),
               .body = DumpJson(object)},
              options.discard_response);
}

absl::StatusOr<Json> Client::UpdateStatus(const GroupVersionResource& gvr, std::string_view ns,
                                          const Json& object, const WriteOptions& options) {
  absl::StatusOr<std::string> name = NameOf(object);
  if (!name.ok()) return name.status();
  QueryParams q;
  q.emplace_back("fieldManager",
                 options.field_manager.empty() ? field_manager_ : options.field_manager);
  if (options.dry_run) q.emplace_back("dryRun", "All");
  return Send("update", gvr.resource,
              {.method = "PUT",
               .path = ResourcePath(gvr, ns, *name, "status") + EncodeQuery(q),
               .body = DumpJson(object)},
              options.discard_response);
}

absl::Status Client::Delete(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const DeleteOptions& options) {
  Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.propagation != PropagationPolicy::kDefault) {
    body["propagationPolicy"] = PolicyName(options.propagation);
  }
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.dry_run) body["dryRun"] = Json::array({"All"});
  return Send("delete", gvr.resource,
              {.method = "DELETE", .path = ResourcePath(gvr, ns, name), .body = DumpJson(body)})
      .status();
}

absl::StatusOr<Json> Client::Patch(const GroupVersionResource& gvr, std::string_view ns,
                                   std::string_view name, PatchType type, const Json& patch,
                                   const PatchOptions& options) {
  QueryParams q;
  const std::string& manager =
      options.field_manager.empty() ? field_manager_ : options.field_manager;
  q.emplace_back("fieldManager", manager);
  if (type == PatchType::kApply && options.force) q.emplace_back("force", "true");
  if (options.dry_run) q.emplace_back("dryRun", "All");
  return Send("patch", gvr.resource,
              {.method = "PATCH",
               .path = ResourcePath(gvr, ns, name, options.subresource) + EncodeQuery(q),
               .body = DumpJson(patch),
               .content_type = std::string(PatchContentType(type))},
              options.discard_response);
}

absl::StatusOr<Json> Client::Apply(const GroupVersionResource& gvr, std::string_view ns,
                                   const Json& object, PatchOptions options) {
  absl::StatusOr<std::string> name = NameOf(object);
  if (!name.ok()) return name.status();
  return Patch(gvr, ns, *name, PatchType::kApply, object, options);
}

absl::StatusOr<Json> Client::ApplyStatus(const GroupVersionResource& gvr, std::string_view ns,
                                         const Json& object, PatchOptions options) {
  options.subresource = "status";
  return Apply(gvr, ns, object, std::move(options));
}

absl::StatusOr<Json> Client::GetPath(std::string_view path) {
  return Send("get", "", {.path = std::string(path)});
}

}  // namespace quorum::kube
