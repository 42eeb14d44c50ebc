// Key ranges of etcd's KV API. Pure, thread-safe.
#ifndef QUORUM_SRC_ETCD_KEYS_H_
#define QUORUM_SRC_ETCD_KEYS_H_

#include <string>
#include <string_view>

namespace quorum::etcd {

// The range_end that makes [prefix, range_end) every key starting with
// `prefix`: its last byte incremented (bytes 0xff dropped first); "\0" (every
// key from `prefix` on) when nothing is left.
inline std::string PrefixRangeEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');
  end.back() = static_cast<char>(end.back() + 1);
  return end;
}

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_KEYS_H_
