#include "src/controllers/common/kube_fields.h"

#include "src/base/json_access.h"

namespace quorum::controllers {

using json_access::At;
using json_access::Str;
using Json = nlohmann::json;

const Json& ClaimTemplatesOf(const Json& sts) { return At(sts, {"spec", "volumeClaimTemplates"}); }

void SetClaimTemplates(Json& sts, const Json& templates) {
  if (templates.is_array()) {
    sts["spec"]["volumeClaimTemplates"] = templates;
    return;
  }
  auto spec = sts.is_object() ? sts.find("spec") : sts.end();
  if (spec != sts.end() && spec->is_object()) spec->erase("volumeClaimTemplates");
}

int StatefulSetReplicas(const Json& sts, int absent) {
  const Json& r = At(sts, {"spec", "replicas"});
  return r.is_number_integer() ? r.get<int>() : absent;
}

std::string StatefulSetUpdateStrategy(const Json& sts) {
  return Str(At(sts, {"spec", "updateStrategy", "type"}));
}

std::string StatefulSetUpdateRevision(const Json& sts) {
  return Str(At(sts, {"status", "updateRevision"}));
}

const Json& StatefulSetSelector(const Json& sts) {
  return At(sts, {"spec", "selector", "matchLabels"});
}

const Json& ClaimSpec(const Json& claim) { return At(claim, {"spec"}); }

const Json& StorageRequest(const Json& claim) {
  return At(claim, {"spec", "resources", "requests", "storage"});
}

void SetStorageRequest(Json& claim, const Json& storage) {
  claim["spec"]["resources"]["requests"]["storage"] = storage;
}

std::string StorageClassName(const Json& pvc) { return Str(At(pvc, {"spec", "storageClassName"})); }

std::string PodNodeName(const Json& pod) { return Str(At(pod, {"spec", "nodeName"})); }

bool PodReady(const Json& pod) {
  for (const Json& c : At(pod, {"status", "conditions"})) {
    if (Str(At(c, {"type"})) == "Ready") return Str(At(c, {"status"})) == "True";
  }
  return false;
}

bool PodRestartingUnready(const Json& pod) {
  std::string unready_since;
  for (const Json& c : At(pod, {"status", "conditions"})) {
    if (Str(At(c, {"type"})) != "Ready") continue;
    if (Str(At(c, {"status"})) == "True") return false;
    unready_since = Str(At(c, {"lastTransitionTime"}));
  }
  for (const Json& c : At(pod, {"status", "containerStatuses"})) {
    const Json& running = At(c, {"state", "running"});
    if (!running.is_object()) return true;  // waiting or terminated
    // Same-format UTC timestamps compare as strings.
    if (!unready_since.empty() && Str(At(running, {"startedAt"})) >= unready_since) return true;
  }
  return false;
}

bool BeingDeleted(const Json& obj) { return !At(obj, {"metadata", "deletionTimestamp"}).is_null(); }

absl::Duration Age(const Json& obj, absl::Time now) {
  absl::Time created;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, Str(At(obj, {"metadata", "creationTimestamp"})),
                       &created, &err)) {
    return absl::ZeroDuration();
  }
  return now - created;
}

}  // namespace quorum::controllers
