// The etcd endpoint URLs of spec.patroni.dcs.etcd.endpoints:
// scheme://host[:port][/] with scheme http or https, a host name, an IPv4
// address or a bracketed IPv6 address, and no path (Patroni's etcd3 client
// takes hosts and one protocol, not URLs). The CRD's pattern accepts the same
// shape; this parser also checks the port range. Validation and the Patroni
// configuration builder both use it.
//
// Thread-safety: pure functions.
#ifndef QUORUM_API_POSTGRESCLUSTER_ETCD_URL_H_
#define QUORUM_API_POSTGRESCLUSTER_ETCD_URL_H_

#include <optional>
#include <string>
#include <string_view>

namespace quorum::api {

struct EtcdUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // as written; IPv6 keeps its brackets
  int port = 0;        // 0 when the URL has none
  // "host:port" as Patroni's etcd3.hosts wants it; the port defaults to 2379.
  std::string HostPort() const;
};

// nullopt when `url` is not of the shape above.
std::optional<EtcdUrl> ParseEtcdUrl(std::string_view url);

}  // namespace quorum::api

#endif  // QUORUM_API_POSTGRESCLUSTER_ETCD_URL_H_
