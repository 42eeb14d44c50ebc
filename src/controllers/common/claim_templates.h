// A StatefulSet's volumeClaimTemplates are immutable: applying a StatefulSet
// whose claim templates changed (a bigger storage request, a label or
// annotation on the claim template) is refused by the API server, and a
// reconciler that applies it would fail there on every attempt, before its
// status and everything after. This module stands between the builders and
// ApplyIfChanged for StatefulSets and does what users expect instead:
//
//   * nothing changed in the claim templates: apply as built;
//   * storage grew and every existing claim's StorageClass allows volume
//     expansion: patch each existing PVC of the StatefulSet to the new
//     request (and the template's labels/annotations), then delete the
//     StatefulSet with orphan propagation (its pods keep running and are
//     adopted again) and skip its apply; the StatefulSet watch brings the
//     next reconcile, which creates it anew with the new templates;
//   * only labels/annotations (or other template fields) changed: the same
//     without growing PVCs;
//   * storage grew but a StorageClass does not allow expansion (or cannot be
//     read), or storage shrank (admission refuses it; an old object may still
//     hold it): the StatefulSet is applied with its live claim templates, so
//     everything else in it and the rest of the reconcile proceed, and the
//     outcome says why the storage did not change.
//
// Progress of a resize is read from the PVCs (spec request vs
// status.capacity) on every reconcile (ResizeProgress), for a condition.
//
// Thread-safety: safe for different StatefulSets concurrently.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_CLAIM_TEMPLATES_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_CLAIM_TEMPLATES_H_

#include <string>
#include <vector>

#include "src/kube/client.h"
#include "src/kube/resources.h"
#include "src/runtime/cache.h"

namespace quorum::controllers {

// --- Pure -------------------------------------------------------------------

struct ClaimGrowth {
  std::string template_name;  // e.g. "data"
  std::string from, to;       // storage requests as written
};

struct ClaimTemplateDiff {
  bool changed = false;  // the API server would refuse to update the templates
  bool shrink = false;   // a storage request got smaller
  std::vector<ClaimGrowth> growth;
};

// Compares spec.volumeClaimTemplates of the live StatefulSet (as the API
// server returned it, defaults included) with the desired one (as built).
// Templates pair up by metadata.name; labels and annotations compare
// exactly, the spec as "desired is a subset of live".
ClaimTemplateDiff DiffClaimTemplates(const kube::Json& live_sts, const kube::Json& desired_sts);

// The PVC of ordinal k for template `tmpl` of StatefulSet `sts`: "<tmpl>-<sts>-<k>".
std::string ClaimName(const std::string& tmpl, const std::string& sts, int ordinal);

struct ResizeProgress {
  int claims = 0;    // existing PVCs of the StatefulSet's templates
  int resizing = 0;  // of those, requested more than their capacity
  std::string message;
};
// For the PVCs given (nullptr entries are skipped).
ResizeProgress ResizeProgressOf(const std::vector<runtime::ObjectPtr>& pvcs);

// The names of the PVCs among `pvcs` made before `created` (the owner's
// metadata.creationTimestamp, RFC 3339): an earlier owner of the same name
// left them. Timestamps have second precision, so a claim made in the
// owner's own second counts as its own. Sorted; none when `created` is "".
std::vector<std::string> ClaimsOlderThan(const std::vector<runtime::ObjectPtr>& pvcs,
                                         const std::string& created);

// --- Act ----------------------------------------------------------------------

struct ClaimTemplateOutcome {
  kube::Json statefulset;  // what to apply (live templates when they cannot change now)
  bool apply = true;       // false: being re-created; the StatefulSet watch brings the apply
  // "" when the templates are unchanged; else one of "Recreating" (PVCs
  // patched, StatefulSet orphan-deleted), "ExpansionNotAllowed",
  // "ShrinkRefused", "Waiting" (the orphan deletion is still in progress).
  std::string reason;
  std::string message;   // for an event and a condition, names the field
  bool warning = false;  // the storage did not change as asked
};

// `desired` as built, `live` from the cache (null: not created yet),
// `field` the path of the claim spec in the resource, for messages (e.g.
// "spec.storage.volumeClaimTemplate.spec"). Errors: the API's, when patching a PVC or
// deleting the StatefulSet failed (the next reconcile tries again).
absl::StatusOr<ClaimTemplateOutcome> PrepareStatefulSet(kube::Client& client,
                                                        const runtime::Cache& cache,
                                                        kube::Json desired,
                                                        const runtime::ObjectPtr& live,
                                                        const std::string& field);

// The PVCs of `sts` (its templates, ordinals 0..replicas-1 and retained
// ones above) in the cache; the cache holds only PVCs that carry
// app.kubernetes.io/name (controllers::CacheScopes).
std::vector<runtime::ObjectPtr> ClaimsOf(const runtime::Cache& cache, const kube::Json& sts);

// The same from the API server: the PVCs that carry the StatefulSet's
// selector labels (the StatefulSet controller puts them there) and are named
// after one of its templates. Errors: the API's.
absl::StatusOr<std::vector<runtime::ObjectPtr>> ListClaims(kube::Client& client,
                                                           const kube::Json& sts);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_CLAIM_TEMPLATES_H_
