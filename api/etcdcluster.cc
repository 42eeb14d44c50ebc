#include "api/etcdcluster.h"

#include <algorithm>
#include <array>

namespace quorum::api {
namespace {

// etcd 3.5/3.6 flag names (etcdmain/config.go, embed/config.go).
constexpr std::array<std::string_view, 29> kReserved = {
    "advertise-client-urls",
    "auto-tls",
    "cert-file",
    "client-cert-auth",
    "client-cert-file",
    "client-key-file",
    "config-file",
    "data-dir",
    "discovery",
    "discovery-srv",
    "initial-advertise-peer-urls",
    "initial-cluster",
    "initial-cluster-state",
    "initial-cluster-token",
    "key-file",
    "listen-client-http-urls",
    "listen-client-urls",
    "listen-metrics-urls",
    "listen-peer-urls",
    "name",
    "peer-auto-tls",
    "peer-cert-file",
    "peer-client-cert-auth",
    "peer-client-cert-file",
    "peer-client-key-file",
    "peer-key-file",
    "peer-trusted-ca-file",
    "trusted-ca-file",
    "wal-dir",
};

constexpr std::array<std::string_view, kReserved.size()> Sorted() {
  std::array<std::string_view, kReserved.size()> out = kReserved;
  std::sort(out.begin(), out.end());
  return out;
}

constexpr std::array<std::string_view, kReserved.size()> kSorted = Sorted();

}  // namespace

std::span<const std::string_view> ReservedEtcdOptions() { return kSorted; }

bool IsReservedEtcdOption(std::string_view key) {
  if (key.starts_with("listen-") || key.starts_with("discovery")) return true;
  return std::binary_search(kSorted.begin(), kSorted.end(), key);
}

}  // namespace quorum::api
