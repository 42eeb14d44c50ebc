// Returning freed heap memory to the kernel.
//
// glibc's free() gives memory back only from the top of the heap; pages of
// freed chunks below live ones stay resident. A reconcile builds and drops
// JSON trees of a few KiB each, so after a burst of work the heap is mostly
// holes that still count as RSS. malloc_trim(0) hands those pages back
// (MADV_DONTNEED); it walks the free lists, about a millisecond for tens of
// MiB, so it is called when work runs out, not on a timer.
// Thread-safety: safe to call from any thread.
#ifndef QUORUM_SRC_BASE_MEMORY_H_
#define QUORUM_SRC_BASE_MEMORY_H_

#include "absl/time/time.h"

namespace quorum {

// malloc_trim(0), unless another call did it less than `min_interval` ago.
// Returns whether it trimmed.
bool ReleaseFreedMemory(absl::Duration min_interval = absl::Seconds(1));

}  // namespace quorum

#endif  // QUORUM_SRC_BASE_MEMORY_H_
