// Process-wide settings of the etcd client's gRPC runtime.
//
// UseNativeNameResolution: names resolve through libc (getaddrinfo), so the
// search domains of /etc/resolv.conf and /etc/hosts apply and the short
// in-cluster names (member.headless.ns.svc) resolve. It sets the environment
// variable GRPC_DNS_RESOLVER=native unless already set; setenv is not safe
// while other threads read the environment, so programs call it first thing
// in main(). etcd::Client calls it too on first use (for tests and tools
// that do not), where it does nothing once called.
#ifndef QUORUM_SRC_ETCD_PROCESS_H_
#define QUORUM_SRC_ETCD_PROCESS_H_

namespace quorum::etcd {

void UseNativeNameResolution();

}  // namespace quorum::etcd

#endif  // QUORUM_SRC_ETCD_PROCESS_H_
