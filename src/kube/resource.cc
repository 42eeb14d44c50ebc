#include "src/kube/resource.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::kube {

std::string ApiVersion(std::string_view group, std::string_view version) {
  if (group.empty()) return std::string(version);
  return absl::StrCat(Absl(group), "/", Absl(version));
}

std::pair<std::string, std::string> SplitApiVersion(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return {"", std::string(api_version)};
  return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
}

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  if (group.empty()) return absl::StrCat("/api/", PercentEncode(version));
  return absl::StrCat("/apis/", PercentEncode(group), "/", PercentEncode(version));
}

std::string ResourcePath(const GroupVersionResource& gvr, std::string_view ns,
                         std::string_view name, std::string_view subresource) {
  std::string path = GroupVersionPath(gvr.group, gvr.version);
  if (!ns.empty()) absl::StrAppend(&path, "/namespaces/", PercentEncode(ns));
  absl::StrAppend(&path, "/", PercentEncode(gvr.resource));
  if (!name.empty()) {
    absl::StrAppend(&path, "/", PercentEncode(name));
    if (!subresource.empty()) absl::StrAppend(&path, "/", PercentEncode(subresource));
  }
  return path;
}

QueryParams ListQuery(const ListOptions& o, bool watch) {
  QueryParams q;
  if (watch) q.emplace_back("watch", "1");
  if (!o.label_selector.empty()) q.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) q.emplace_back("fieldSelector", o.field_selector);
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty()) {
    q.emplace_back("resourceVersionMatch", o.resource_version_match);
  }
  if (!watch && o.limit > 0) q.emplace_back("limit", absl::StrCat(o.limit));
  if (!watch && !o.continue_token.empty()) q.emplace_back("continue", o.continue_token);
  if (o.timeout_seconds) q.emplace_back("timeoutSeconds", absl::StrCat(*o.timeout_seconds));
  if (watch && o.allow_watch_bookmarks) q.emplace_back("allowWatchBookmarks", "true");
  return q;
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string EncodeQuery(const QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    absl::StrAppend(&out, out.empty() ? "?" : "&", PercentEncode(k), "=", PercentEncode(v));
  }
  return out;
}

}  // namespace quorum::kube
