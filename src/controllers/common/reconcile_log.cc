#include "src/controllers/common/reconcile_log.h"

#include <atomic>

namespace quorum::controllers {
namespace {

std::string NextId() {
  static std::atomic<uint64_t> next{1};
  return std::to_string(next.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace

ReconcileLogScope::ReconcileLogScope(const std::string& controller, const runtime::Request& request)
    : id_(NextId()),
      fields_({{"controller", controller},
               {"namespace", request.ns},
               {"name", request.name},
               {"reconcileID", id_}}) {}

}  // namespace quorum::controllers
