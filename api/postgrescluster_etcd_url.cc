#include "api/postgrescluster_etcd_url.h"

namespace quorum::api {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsHostName(std::string_view h) {
  if (h.empty() || h.size() > 253 || !IsAlnum(h.front()) || !IsAlnum(h.back())) return false;
  for (char c : h) {
    if (!IsAlnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

bool IsBracketedIpv6(std::string_view h) {
  if (h.size() < 4 || h.front() != '[' || h.back() != ']') return false;
  for (char c : h.substr(1, h.size() - 2)) {
    if (!IsHex(c) && c != ':' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string EtcdUrl::HostPort() const {
  return host + ":" + std::to_string(port == 0 ? 2379 : port);
}

std::optional<EtcdUrl> ParseEtcdUrl(std::string_view url) {
  EtcdUrl out;
  if (url.starts_with("https://")) {
    out.scheme = "https";
  } else if (url.starts_with("http://")) {
    out.scheme = "http";
  } else {
    return std::nullopt;
  }
  std::string_view rest = url.substr(out.scheme.size() + 3);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  std::string_view host = rest, port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, close + 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
      if (port.empty()) return std::nullopt;
    }
    if (!IsBracketedIpv6(host)) return std::nullopt;
  } else {
    if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
      if (port.empty()) return std::nullopt;
    }
    if (!IsHostName(host)) return std::nullopt;
  }
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    int n = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
    }
    if (n < 1 || n > 65535) return std::nullopt;
    out.port = n;
  }
  out.host = std::string(host);
  return out;
}

}  // namespace quorum::api
