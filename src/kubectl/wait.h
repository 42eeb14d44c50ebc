// Waits for one object to reach a state, by watching it: the object is read
// once, then each change the API server sends is looked at, until `done`
// accepts one, the object is deleted, or the time is up. The only waiting of
// the commands that start something and report its outcome (switchover,
// backup --wait).
//
// Thread-safety: as kube::Client; one call uses one helper thread (the
// deadline) for its own duration.
#ifndef QUORUM_SRC_KUBECTL_WAIT_H_
#define QUORUM_SRC_KUBECTL_WAIT_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/kube/client.h"
#include "src/kube/resource.h"

namespace quorum::kubectl {

struct WaitResult {
  bool done = false;      // `done` accepted `object`; false: the time ran out
  nlohmann::json object;  // the last version seen
};

// Errors: NotFound when the object is absent or deleted meanwhile (the
// message names it); any other code as the API answered the first read.
// A watch that breaks is resumed; one whose resourceVersion expired is
// restarted from a fresh read; one the API forbids (RBAC without `watch`)
// gives way to a read every second.
absl::StatusOr<WaitResult> WaitForObject(kube::Client& client,
                                         const kube::GroupVersionResource& gvr,
                                         const std::string& ns, const std::string& name,
                                         const std::function<bool(const nlohmann::json&)>& done,
                                         absl::Duration timeout);

}  // namespace quorum::kubectl

#endif  // QUORUM_SRC_KUBECTL_WAIT_H_
