#include "src/etcd/endpoint.h"

#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::etcd {

absl::StatusOr<Endpoint> ParseEndpoint(std::string_view url) {
  Endpoint out;
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    rest = url.substr(8);
    out.tls = true;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("etcd endpoint ", Absl(url), ": not an http:// or https:// URL"));
  }
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);  // user info has no meaning for etcd
  }
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  const bool has_port =
      colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
  const std::string_view host = has_port ? authority.substr(0, colon) : authority;
  const std::string_view port = has_port ? authority.substr(colon + 1) : std::string_view();
  if (host.empty() || host == "[]") {
    return absl::InvalidArgumentError(absl::StrCat("etcd endpoint ", Absl(url), ": no host"));
  }
  for (char c : port) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(absl::StrCat("etcd endpoint ", Absl(url), ": bad port"));
    }
  }
  const std::string_view default_port = out.tls ? "443" : "80";
  out.target = absl::StrCat(Absl(host), ":", Absl(port.empty() ? default_port : port));
  return out;
}

}  // namespace quorum::etcd
