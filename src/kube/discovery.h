// RestMapper: maps a kind (apiVersion + kind) to its resource (plural name,
// namespaced or not) using the API server's discovery documents, so callers
// can work with any type, including CRDs installed after start. Group
// versions are fetched on first use and cached; a miss refetches once (a CRD
// may just have been installed).
// Thread-safety: all methods may be called concurrently.
#ifndef QUORUM_SRC_KUBE_DISCOVERY_H_
#define QUORUM_SRC_KUBE_DISCOVERY_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"

namespace quorum::kube {

struct ApiResource {
  GroupVersionResource gvr;
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;
  std::vector<std::string> subresources;  // e.g. "status", "scale"
};

// Parses an APIResourceList discovery document (pure). Errors: Internal for
// a malformed document.
absl::StatusOr<std::vector<ApiResource>> ParseApiResourceList(const Json& doc);

class RestMapper {
 public:
  explicit RestMapper(Client& client) : client_(client) {}

  // Errors: NotFound when the group version or kind does not exist (after
  // one refresh), and the client's errors.
  absl::StatusOr<ApiResource> ResourceFor(const GroupVersionKind& gvk);
  absl::StatusOr<ApiResource> ResourceFor(std::string_view api_version, std::string_view kind);

  // Forgets everything (e.g. after CRDs changed).
  void Invalidate();

 private:
  absl::StatusOr<std::vector<ApiResource>> Fetch(const std::string& group,
                                                 const std::string& version, bool refresh);

  Client& client_;
  absl::Mutex mu_;
  std::map<std::string, std::vector<ApiResource>> cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_DISCOVERY_H_
