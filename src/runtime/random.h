// Secrets the operator generates itself (passwords), from OpenSSL's CSPRNG.
// Thread-safe.
#ifndef QUORUM_SRC_RUNTIME_RANDOM_H_
#define QUORUM_SRC_RUNTIME_RANDOM_H_

#include <string>

#include "absl/status/statusor.h"

namespace quorum::runtime {

// `length` characters from [A-Za-z0-9], uniformly (rejection sampling), so the
// result is safe in URIs, shells and config files without quoting.
// Internal when the random source fails.
absl::StatusOr<std::string> RandomPassword(int length = 32);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_RANDOM_H_
