#include "src/runtime/random.h"

#include <openssl/rand.h>

#include <string_view>

namespace quorum::runtime {

absl::StatusOr<std::string> RandomPassword(int length) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  // 62 * 4 = 248: bytes >= 248 would bias the modulo, so they are skipped.
  constexpr unsigned kLimit = kAlphabet.size() * (256 / kAlphabet.size());
  std::string out;
  out.reserve(length);
  unsigned char buf[64];
  while (static_cast<int>(out.size()) < length) {
    if (RAND_bytes(buf, sizeof buf) != 1) return absl::InternalError("no random bytes");
    for (unsigned char b : buf) {
      if (b >= kLimit || static_cast<int>(out.size()) == length) continue;
      out += kAlphabet[b % kAlphabet.size()];
    }
  }
  return out;
}

}  // namespace quorum::runtime
