#include "src/controllers/common/claim_templates.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/quantity.h"
#include "src/base/json_access.h"
#include "src/controllers/common/kube_fields.h"
#include "src/kube/resources.h"
#include "src/runtime/apply.h"

namespace quorum::controllers {
namespace {

using kube::Json;
// Reads through src/base/json_access.h; the StatefulSet and claim fields
// through kube_fields.h.
using json_access::At;

Json ObjectOrEmpty(const Json& j) { return j.is_object() ? j : Json::object(); }

std::optional<api::Quantity> Storage(const Json& spec_or_status, const char* section) {
  const Json& q = At(spec_or_status, {section, "storage"});
  if (q.is_null()) return std::nullopt;
  absl::StatusOr<api::Quantity> parsed = api::QuantityFromJson(q);
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

std::optional<api::Quantity> Request(const Json& claim_spec) {
  return Storage(At(claim_spec, {"resources"}), "requests");
}

std::string Text(const Json& q) { return q.is_string() ? q.get<std::string>() : q.dump(); }

const Json* TemplateNamed(const Json& templates, const Json& name) {
  if (!templates.is_array()) return nullptr;
  for (const Json& t : templates) {
    if (At(t, {"metadata", "name"}) == name) return &t;
  }
  return nullptr;
}

// Why the claims cannot grow (`growth` says from what to what), "" when every
// claim's StorageClass allows expansion. A StorageClass that cannot be read
// refuses too.
std::string ExpansionRefusal(kube::Client& client, const std::vector<runtime::ObjectPtr>& claims,
                             const std::string& growth) {
  for (const runtime::ObjectPtr& pvc : claims) {
    const std::string sc = StorageClassName(*pvc);
    if (sc.empty() || sc == "null") {
      return growth + "volume " + Text(At(*pvc, {"metadata", "name"})) +
             " has no StorageClass; revert the request";
    }
    absl::StatusOr<Json> klass = client.Get(kube::kStorageClasses, "", sc);
    if (!klass.ok()) {
      return growth + "cannot read StorageClass \"" + sc +
             "\": " + std::string(klass.status().message());
    }
    if (At(*klass, {"allowVolumeExpansion"}) != true) {
      return growth + "StorageClass \"" + sc +
             "\" does not allow volume expansion (allowVolumeExpansion is not "
             "true); revert the request or move to a StorageClass that does";
    }
  }
  return std::string();
}

// What PatchClaims did: claims patched, claims left at their size because they
// are not Bound (the API server lets only a Bound claim grow), and the API
// server's refusal of a patch, if any (then it stopped there).
struct ClaimPatches {
  int count = 0;
  std::vector<std::string> unbound;
  std::string refused;
};

// Grows and relabels the existing claims of StatefulSet `name` to match the
// claim templates of `desired` (a claim gone is skipped). A refusal (422) is
// returned for the user to act on (condition + event), not as an error to retry.
absl::StatusOr<ClaimPatches> PatchClaims(kube::Client& client,
                                         const std::vector<runtime::ObjectPtr>& claims,
                                         const Json& desired, const std::string& name) {
  ClaimPatches out;
  for (const runtime::ObjectPtr& pvc : claims) {
    const std::string pvc_name = Text(At(*pvc, {"metadata", "name"}));
    const Json* tmpl = nullptr;
    for (const Json& t : ClaimTemplatesOf(desired)) {
      const std::string prefix = Text(At(t, {"metadata", "name"})) + "-" + name + "-";
      if (pvc_name.rfind(prefix, 0) == 0) tmpl = &t;
    }
    if (tmpl == nullptr) continue;
    Json patch = Json::object();
    for (const char* meta : {"labels", "annotations"}) {
      const Json& want = At(*tmpl, {"metadata", meta});
      if (want.is_object() && !want.empty() &&
          !runtime::IsSubset(want, At(*pvc, {"metadata", meta}))) {
        patch["metadata"][meta] = want;
      }
    }
    const std::optional<api::Quantity> want = Request(ClaimSpec(*tmpl));
    const std::optional<api::Quantity> have = Request(ClaimSpec(*pvc));
    if (want && have && *want > *have) {
      if (Text(At(*pvc, {"status", "phase"})) == "Bound") {
        SetStorageRequest(patch, StorageRequest(*tmpl));
      } else {
        out.unbound.push_back(pvc_name);
      }
    }
    if (patch.empty()) continue;
    absl::StatusOr<Json> r = client.Patch(kube::kPvcs, Text(At(*pvc, {"metadata", "namespace"})),
                                          pvc_name, kube::PatchType::kMerge, patch);
    if (absl::IsInvalidArgument(r.status())) {
      out.refused = absl::StrCat("the API server refused to change claim \"", pvc_name,
                                 "\": ", r.status().message());
      return out;
    }
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
    ++out.count;
  }
  return out;
}

}  // namespace

ClaimTemplateDiff DiffClaimTemplates(const Json& live_sts, const Json& desired_sts) {
  ClaimTemplateDiff d;
  const Json& live = ClaimTemplatesOf(live_sts);
  const Json& desired = ClaimTemplatesOf(desired_sts);
  const size_t live_n = live.is_array() ? live.size() : 0;
  const size_t desired_n = desired.is_array() ? desired.size() : 0;
  if (live_n != desired_n) d.changed = true;
  if (desired_n == 0) return d;
  for (const Json& want : desired) {
    const Json* have = TemplateNamed(live, At(want, {"metadata", "name"}));
    if (have == nullptr) {
      d.changed = true;
      continue;
    }
    for (const char* meta : {"labels", "annotations"}) {
      if (ObjectOrEmpty(At(want, {"metadata", meta})) !=
          ObjectOrEmpty(At(*have, {"metadata", meta}))) {
        d.changed = true;
      }
    }
    const Json& want_spec = ClaimSpec(want);
    const Json& have_spec = ClaimSpec(*have);
    const std::optional<api::Quantity> w = Request(want_spec), h = Request(have_spec);
    if (w && h && *w > *h) {
      d.growth.push_back({Text(At(want, {"metadata", "name"})),
                          Text(At(have_spec, {"resources", "requests", "storage"})),
                          Text(At(want_spec, {"resources", "requests", "storage"}))});
      d.changed = true;
    } else if (w && h && *w < *h) {
      d.shrink = true;
      d.changed = true;
    }
    // Everything else in the spec: desired must already hold.
    Json rest = want_spec;
    if (rest.is_object() && have_spec.is_object() && w && h) {
      rest["resources"]["requests"]["storage"] = have_spec["resources"]["requests"]["storage"];
    }
    if (!runtime::IsSubset(rest, have_spec)) d.changed = true;
  }
  return d;
}

std::string ClaimName(const std::string& tmpl, const std::string& sts, int ordinal) {
  return absl::StrCat(tmpl, "-", sts, "-", ordinal);
}

ResizeProgress ResizeProgressOf(const std::vector<runtime::ObjectPtr>& pvcs) {
  ResizeProgress p;
  std::string waiting;
  for (const runtime::ObjectPtr& pvc : pvcs) {
    if (pvc == nullptr) continue;
    ++p.claims;
    const std::optional<api::Quantity> want = Request(ClaimSpec(*pvc));
    const std::optional<api::Quantity> have = Storage(At(*pvc, {"status"}), "capacity");
    if (want && have && *want > *have) {
      ++p.resizing;
      absl::StrAppend(&waiting, waiting.empty() ? "" : ", ", Text(At(*pvc, {"metadata", "name"})),
                      " (", Text(At(*pvc, {"status", "capacity", "storage"})), " of ",
                      Text(StorageRequest(*pvc)), ")");
    }
  }
  if (p.resizing > 0) {
    p.message =
        absl::StrCat(p.resizing, " of ", p.claims, " volumes are still being expanded: ", waiting);
  }
  return p;
}

// RFC 3339 timestamps of the API server (second precision, UTC "Z") order as
// strings.
std::vector<std::string> ClaimsOlderThan(const std::vector<runtime::ObjectPtr>& pvcs,
                                         const std::string& created) {
  std::vector<std::string> out;
  if (created.empty()) return out;
  for (const runtime::ObjectPtr& pvc : pvcs) {
    if (pvc == nullptr) continue;
    const std::string made = Text(At(*pvc, {"metadata", "creationTimestamp"}));
    if (!made.empty() && made < created) out.push_back(Text(At(*pvc, {"metadata", "name"})));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<runtime::ObjectPtr> ClaimsOf(const runtime::Cache& cache, const Json& sts) {
  std::vector<runtime::ObjectPtr> out;
  const Json& templates = ClaimTemplatesOf(sts);
  if (!templates.is_array()) return out;
  const std::string ns = Text(At(sts, {"metadata", "namespace"}));
  const std::string name = Text(At(sts, {"metadata", "name"}));
  const int replicas = StatefulSetReplicas(sts, 1);
  for (const Json& t : templates) {
    const std::string tmpl = Text(At(t, {"metadata", "name"}));
    // Ordinals past the replicas keep their PVCs (retained on scale-down).
    for (int k = 0; k < 10000; ++k) {
      runtime::ObjectPtr pvc = cache.Get(kube::kPvcs, ns, ClaimName(tmpl, name, k));
      if (pvc == nullptr && k >= replicas) break;
      if (pvc != nullptr) out.push_back(std::move(pvc));
    }
  }
  return out;
}

absl::StatusOr<std::vector<runtime::ObjectPtr>> ListClaims(kube::Client& client, const Json& sts) {
  std::vector<runtime::ObjectPtr> out;
  const Json& templates = ClaimTemplatesOf(sts);
  const Json& match = StatefulSetSelector(sts);
  if (!templates.is_array() || !match.is_object() || match.empty()) return out;
  std::string selector;
  for (auto it = match.begin(); it != match.end(); ++it) {
    absl::StrAppend(&selector, selector.empty() ? "" : ",", it.key(), "=", Text(it.value()));
  }
  const std::string ns = Text(At(sts, {"metadata", "namespace"}));
  const std::string name = Text(At(sts, {"metadata", "name"}));
  absl::StatusOr<Json> list = client.List(kube::kPvcs, ns, {.label_selector = selector});
  if (!list.ok()) return list.status();
  for (const Json& pvc : At(*list, {"items"})) {
    const std::string pvc_name = Text(At(pvc, {"metadata", "name"}));
    for (const Json& t : templates) {
      const std::string prefix = Text(At(t, {"metadata", "name"})) + "-" + name + "-";
      const std::string rest = pvc_name.rfind(prefix, 0) == 0 ? pvc_name.substr(prefix.size()) : "";
      if (!rest.empty() && std::all_of(rest.begin(), rest.end(), ::isdigit)) {
        out.push_back(std::make_shared<const Json>(pvc));
        break;
      }
    }
  }
  return out;
}

absl::StatusOr<ClaimTemplateOutcome> PrepareStatefulSet(kube::Client& client,
                                                        const runtime::Cache& cache, Json desired,
                                                        const runtime::ObjectPtr& live,
                                                        const std::string& field) {
  ClaimTemplateOutcome out;
  const std::string name = Text(At(desired, {"metadata", "name"}));
  if (live != nullptr && At(*live, {"metadata"}).contains("deletionTimestamp")) {
    out.statefulset = std::move(desired);
    out.apply = false;
    out.reason = "Waiting";
    out.message = "StatefulSet " + name + " is being deleted; it is created again once it is gone";
    return out;
  }
  if (live == nullptr) {
    out.statefulset = std::move(desired);
    return out;
  }
  const ClaimTemplateDiff diff = DiffClaimTemplates(*live, desired);
  if (!diff.changed) {
    out.statefulset = std::move(desired);
    return out;
  }
  auto keep_live = [&](std::string reason, std::string message) {
    SetClaimTemplates(desired, ClaimTemplatesOf(*live));
    out.statefulset = std::move(desired);
    out.reason = std::move(reason);
    out.message = std::move(message);
    out.warning = true;
    return out;
  };
  if (diff.shrink) {
    return keep_live("ShrinkRefused", field +
                                          ".resources.requests.storage: a volume cannot "
                                          "shrink; the volumes keep their size");
  }
  absl::StatusOr<std::vector<runtime::ObjectPtr>> listed = ListClaims(client, *live);
  if (!listed.ok()) return listed.status();
  const std::vector<runtime::ObjectPtr>& claims = *listed;
  if (!diff.growth.empty()) {
    std::string refused = ExpansionRefusal(
        client, claims,
        absl::StrCat(field, ".resources.requests.storage: cannot grow from ",
                     diff.growth.front().from, " to ", diff.growth.front().to, ": "));
    if (!refused.empty()) return keep_live("ExpansionNotAllowed", std::move(refused));
  }
  // Grow and relabel the existing claims, then re-create the StatefulSet
  // without touching its pods.
  absl::StatusOr<ClaimPatches> patched = PatchClaims(client, claims, desired, name);
  if (!patched.ok()) return patched.status();
  if (!patched->refused.empty()) {
    return keep_live("ClaimChangeRefused", absl::StrCat(field, ": ", patched->refused));
  }
  const std::string ns = Text(At(*live, {"metadata", "namespace"}));
  absl::Status deleted = client.Delete(kube::kStatefulSets, ns, name,
                                       {.propagation = kube::PropagationPolicy::kOrphan,
                                        .precondition_uid = Text(At(*live, {"metadata", "uid"}))});
  if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
  out.statefulset = std::move(desired);
  out.apply = false;
  out.reason = "Recreating";
  out.message =
      diff.growth.empty()
          ? absl::StrCat("the claim template changed: ", patched->count,
                         " volume(s) relabelled; StatefulSet ", name,
                         " is re-created with the new claim template (its pods keep running)")
          : absl::StrCat(field, ".resources.requests.storage grew from ", diff.growth.front().from,
                         " to ", diff.growth.front().to, ": ", patched->count,
                         " volume(s) asked to expand; StatefulSet ", name,
                         " is re-created with the new claim template (its pods keep running)",
                         patched->unbound.empty()
                             ? ""
                             : absl::StrCat("; not bound, so not grown: ",
                                            absl::StrJoin(patched->unbound, ", ")));
  return out;
}

}  // namespace quorum::controllers
