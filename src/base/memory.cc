#include "src/base/memory.h"

#include <malloc.h>

#include <atomic>

#include "absl/time/clock.h"

namespace quorum {

bool ReleaseFreedMemory(absl::Duration min_interval) {
  static std::atomic<int64_t> last_ns{0};
  const int64_t now = absl::ToUnixNanos(absl::Now());
  int64_t last = last_ns.load(std::memory_order_relaxed);
  if (now - last < absl::ToInt64Nanoseconds(min_interval)) return false;
  if (!last_ns.compare_exchange_strong(last, now)) return false;  // another thread trims
#ifdef __GLIBC__
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

}  // namespace quorum
