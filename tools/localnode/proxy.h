// A userspace service proxy (kube-proxy's old mode): for every Service with
// a ClusterIP it owns that address on the node's bridge and forwards each
// TCP connection to a ready endpoint (EndpointSlices, round robin), so the
// ClusterIP works from pods and from the host. default/kubernetes forwards
// to the API server itself (which listens on loopback only).
// Thread-safe; Sync() may be called from informer handlers (it only wakes
// the proxy's own thread).
#ifndef QUORUM_TOOLS_LOCALNODE_PROXY_H_
#define QUORUM_TOOLS_LOCALNODE_PROXY_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/runtime/cache.h"
#include "tools/localnode/net.h"

namespace quorum::localnode {

struct Backend {
  std::string host;
  int port = 0;
};

class ServiceProxy {
 public:
  ServiceProxy(Network& net, runtime::Cache& cache, Backend apiserver);
  ~ServiceProxy();  // Stop()

  void Start();
  void Sync();  // recompute soon
  void Stop();  // closes listeners, waits for open connections to end

 private:
  struct Listener;
  void Loop();
  bool Reconcile();  // false: something to retry later
  void AcceptLoop(Listener* l);
  std::vector<Backend> BackendsFor(const std::string& key);
  void Pump(int a, int b);

  Network& net_;
  runtime::Cache& cache_;
  const Backend apiserver_;
  std::atomic<bool> stop_{false};
  std::thread thread_;

  absl::Mutex mu_;
  bool dirty_ ABSL_GUARDED_BY(mu_) = true;
  std::map<std::string, std::vector<Backend>> backends_ ABSL_GUARDED_BY(mu_);  // "ip:port"
  std::map<std::string, size_t> next_ ABSL_GUARDED_BY(mu_);
  int connections_ ABSL_GUARDED_BY(mu_) = 0;

  std::map<std::string, std::unique_ptr<Listener>> listeners_;  // Loop thread only
};

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_PROXY_H_
