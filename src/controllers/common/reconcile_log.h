// The log scope of one reconcile: every line logged on this thread while it
// lives carries controller, namespace, name and reconcileID (a number unique
// within the process), so one reconcile's lines can be followed in the
// operator's log.
//
// Thread-safety: one scope per worker thread; IDs come from an atomic counter.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_RECONCILE_LOG_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_RECONCILE_LOG_H_

#include <string>

#include "src/base/logging.h"
#include "src/runtime/reconciler.h"

namespace quorum::controllers {

class ReconcileLogScope {
 public:
  ReconcileLogScope(const std::string& controller, const runtime::Request& request);
  const std::string& reconcile_id() const { return id_; }

 private:
  std::string id_;
  ScopedLogFields fields_;
};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_RECONCILE_LOG_H_
