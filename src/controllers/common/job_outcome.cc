#include "src/controllers/common/job_outcome.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"

namespace quorum::controllers {

using Json = nlohmann::json;

JobOutcome OutcomeOf(const Json& job, const Json& pods) {
  JobOutcome out;
  const Json conditions = job.value("status", Json::object()).value("conditions", Json::array());
  std::string condition_message;
  for (const Json& c : conditions) {
    if (!c.is_object() || c.value("status", "") != "True") continue;
    const std::string type = c.value("type", "");
    if (type == "Complete") out.complete = true;
    if (type == "Failed") {
      out.failed = true;
      condition_message = c.value("reason", "") + ": " + c.value("message", "");
    }
  }
  const Json items = pods.is_object() ? pods.value("items", Json::array()) : pods;
  for (const Json& pod : items) {
    const Json statuses =
        pod.value("status", Json::object()).value("containerStatuses", Json::array());
    for (const Json& cs : statuses) {
      const Json terminated = cs.value("state", Json::object()).value("terminated", Json::object());
      const std::string m = terminated.value("message", "");
      if (!m.empty()) out.message = m;
    }
  }
  if (out.message.empty()) out.message = condition_message;
  return out;
}

std::string OneShotJobName(const std::string& owner, const std::string& suffix) {
  const std::string name = owner + "-" + suffix;
  if (name.size() <= 63) return name;
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(owner.data()), owner.size(), d);
  const std::string hash =
      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d), 4));
  return owner.substr(0, 63 - hash.size() - 1 - suffix.size() - 1) + "-" + hash + "-" + suffix;
}

Json RestrictedContainerSecurity() {
  return {{"allowPrivilegeEscalation", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", {{"drop", Json::array({"ALL"})}}}};
}

Json OneShotPodSpec(const Json& container, const Json& volumes, int64_t uid) {
  return {
      {"restartPolicy", "Never"},
      {"automountServiceAccountToken", false},
      {"enableServiceLinks", false},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", uid},
        {"runAsGroup", uid},
        {"fsGroup", uid},
        {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", Json::array({container})},
      {"volumes", volumes},
  };
}

Json BuildOneShotJob(const std::string& name, const std::string& ns, const Json& labels,
                     const JobOwner& owner, int deadline_seconds, const Json& pod_spec) {
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"labels", labels},
        {"ownerReferences", Json::array({{{"apiVersion", owner.api_version},
                                          {"kind", owner.kind},
                                          {"name", owner.name},
                                          {"uid", owner.uid},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})}}},
      {"spec",
       {{"backoffLimit", 0},
        {"activeDeadlineSeconds", deadline_seconds},
        {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}},
  };
}

}  // namespace quorum::controllers
