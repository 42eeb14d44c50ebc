#include "src/patroni/dcs_cleanup.h"

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::patroni {

std::string ClusterKeyPrefix(std::string_view key_namespace, std::string_view scope) {
  const std::string raw = absl::StrCat("/", Absl(key_namespace), "/", Absl(scope), "/");
  std::string key;
  for (char c : raw) {
    if (c == '/' && !key.empty() && key.back() == '/') continue;
    key.push_back(c);
  }
  return key;
}

absl::StatusOr<int64_t> RemoveClusterKeys(etcd::Client& etcd, std::string_view key_namespace,
                                          std::string_view scope) {
  if (scope.empty()) return absl::InvalidArgumentError("remove cluster keys: the scope is empty");
  return etcd.DeletePrefix(ClusterKeyPrefix(key_namespace, scope));
}

}  // namespace quorum::patroni
