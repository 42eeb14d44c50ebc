// Names of API resources and the URL paths and query strings that address
// them, as pure functions (no I/O). Thread-safe.
#ifndef QUORUM_SRC_KUBE_RESOURCE_H_
#define QUORUM_SRC_KUBE_RESOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quorum::kube {

// A resource type: {"", "v1", "configmaps"}, {"apps", "v1", "statefulsets"}.
struct GroupVersionResource {
  std::string group;  // "" is the core group
  std::string version;
  std::string resource;  // lower-case plural
  bool operator==(const GroupVersionResource&) const = default;
};

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  bool operator==(const GroupVersionKind&) const = default;
};

// "v1" for the core group, "group/version" otherwise.
std::string ApiVersion(std::string_view group, std::string_view version);
// Splits an apiVersion ("apps/v1", "v1") into {group, version}.
std::pair<std::string, std::string> SplitApiVersion(std::string_view api_version);

// The path of a collection or an object:
//   /api/v1/namespaces/NS/configmaps[/NAME[/SUBRESOURCE]]
//   /apis/GROUP/VERSION/RESOURCE[/NAME]               (cluster-scoped: ns empty)
// Path segments are percent-encoded.
std::string ResourcePath(const GroupVersionResource& gvr, std::string_view ns,
                         std::string_view name = "", std::string_view subresource = "");

// The discovery path of a group version: /api/v1 or /apis/GROUP/VERSION.
std::string GroupVersionPath(std::string_view group, std::string_view version);

// Query parameters for list and watch requests; empty members are omitted.
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  std::string resource_version_match;  // NotOlderThan | Exact
  int64_t limit = 0;                   // page size; 0 = server default (no paging)
  std::string continue_token;
  std::optional<int64_t> timeout_seconds;
  bool allow_watch_bookmarks = false;
};

using QueryParams = std::vector<std::pair<std::string, std::string>>;

QueryParams ListQuery(const ListOptions& options, bool watch);

// "?k=v&k2=v2" with keys and values percent-encoded; "" when empty.
std::string EncodeQuery(const QueryParams& params);

// RFC 3986 percent-encoding of everything but unreserved characters.
std::string PercentEncode(std::string_view s);

}  // namespace quorum::kube

#endif  // QUORUM_SRC_KUBE_RESOURCE_H_
