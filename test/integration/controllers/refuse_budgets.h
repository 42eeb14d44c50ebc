// An admission policy that refuses every PodDisruptionBudget in one namespace
// (403 from the API server, like a policy or quota a platform team runs), for
// the tests of what a controller does when its writes are refused. Removed
// when the guard goes. Header-only.
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_REFUSE_BUDGETS_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_REFUSE_BUDGETS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kube/resources.h"
#include "test/integration/testenv.h"

namespace quorum::testenv {

class BudgetsRefused {
 public:
  // Creates the policy and its binding for namespace `ns` and waits until a
  // budget of the test's own is refused; check ok() before relying on it.
  BudgetsRefused(kube::Client& client, const std::string& ns)
      : client_(client), name_(ns + "-no-budgets") {
    using kube::Json;
    absl::Status s =
        client_
            .Create(
                kPolicies, "",
                {{"apiVersion", "admissionregistration.k8s.io/v1"},
                 {"kind", "ValidatingAdmissionPolicy"},
                 {"metadata", {{"name", name_}}},
                 {"spec",
                  {{"failurePolicy", "Fail"},
                   {"matchConstraints",
                    {{"resourceRules", Json::array({{{"apiGroups", {"policy"}},
                                                     {"apiVersions", {"v1"}},
                                                     {"operations", {"CREATE", "UPDATE"}},
                                                     {"resources", {"poddisruptionbudgets"}}}})}}},
                   {"validations", Json::array({{{"expression", "false"},
                                                 {"reason", "Forbidden"},
                                                 {"message", "no budgets here"}}})}}}})
            .status();
    if (s.ok()) {
      s = client_
              .Create(kBindings, "",
                      {{"apiVersion", "admissionregistration.k8s.io/v1"},
                       {"kind", "ValidatingAdmissionPolicyBinding"},
                       {"metadata", {{"name", name_}}},
                       {"spec",
                        {{"policyName", name_},
                         {"validationActions", {"Deny"}},
                         {"matchResources",
                          {{"namespaceSelector",
                            {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}}}}}}})
              .status();
    }
    const Json probe = {{"apiVersion", "policy/v1"},
                        {"kind", "PodDisruptionBudget"},
                        {"metadata", {{"name", "probe"}}},
                        {"spec", {{"maxUnavailable", 1}}}};
    ok_ = s.ok() &&
          Eventually(
              [&] {
                return absl::IsPermissionDenied(client_.Create(kube::kPdbs, ns, probe).status());
              },
              absl::Seconds(30));
  }
  ~BudgetsRefused() {
    (void)client_.Delete(kBindings, "", name_);
    (void)client_.Delete(kPolicies, "", name_);
  }
  BudgetsRefused(const BudgetsRefused&) = delete;
  BudgetsRefused& operator=(const BudgetsRefused&) = delete;

  // The policy is in force: a budget was refused.
  bool ok() const { return ok_; }

 private:
  static inline const kube::GroupVersionResource kPolicies{"admissionregistration.k8s.io", "v1",
                                                           "validatingadmissionpolicies"};
  static inline const kube::GroupVersionResource kBindings{"admissionregistration.k8s.io", "v1",
                                                           "validatingadmissionpolicybindings"};
  kube::Client& client_;
  std::string name_;
  bool ok_ = false;
};

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_REFUSE_BUDGETS_H_
