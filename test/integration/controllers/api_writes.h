// API writes a controller's manager made so far, from its rest_client metrics:
// every create/update/patch/delete that reached the API server. Tests take
// the difference around a no-op reconcile, which must be 0. Header-only.
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_

#include "src/runtime/manager.h"

namespace quorum::testenv {

inline double ApiWrites(runtime::Manager& manager) {
  auto& c = manager.metrics().Counter("rest_client_requests_total", "", {});
  double n = 0;
  for (const char* verb : {"create", "update", "patch", "delete"}) {
    for (const char* code : {"200", "201", "409", "422"}) n += c.Value({verb, code});
  }
  return n;
}

}  // namespace quorum::testenv

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_API_WRITES_H_
