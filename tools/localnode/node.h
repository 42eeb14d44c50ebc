// The node agent: what the kubelet (plus a trivial scheduler, a local volume
// provisioner and kube-proxy) does for one machine. It registers the Node and
// renews its Lease, binds pending pods to itself, binds PersistentVolumeClaims
// to directories (one PersistentVolume per claim), runs a PodWorker per pod
// assigned to it, keeps the hosts files (the cluster's name service) current,
// and runs the service proxy. Stop() terminates every pod (grace period
// capped by `shutdown_grace`) and removes namespaces, bridge and addresses.
#ifndef QUORUM_TOOLS_LOCALNODE_NODE_H_
#define QUORUM_TOOLS_LOCALNODE_NODE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/event_recorder.h"
#include "tools/localnode/hosts.h"
#include "tools/localnode/images.h"
#include "tools/localnode/net.h"
#include "tools/localnode/proxy.h"

namespace quorum::localnode {

using kube::Json;
class PodWorker;

struct NodeOptions {
  std::string node_name = "localnode";
  std::string state_dir;  // pods/, volumes/, hosts
  std::string images_file;
  NetworkConfig network;
  absl::Duration shutdown_grace = absl::Seconds(10);
};

// Name service: which pod has which address, rendered into every pod's hosts
// file and into <state_dir>/hosts (for `quorum-localnode exec` on the host).
class HostsWriter {
 public:
  HostsWriter(runtime::Cache& cache, std::string host_file);
  void SetPod(const std::string& uid, PodName name, std::string file, std::string self_fqdn);
  void RemovePod(const std::string& uid);
  void Sync();   // rewrite soon
  void Flush();  // rewrite now
  void Start();
  void Stop();

 private:
  struct Entry {
    PodName name;
    std::string file, self_fqdn;
    bool active = true;
  };
  void Loop();
  runtime::Cache& cache_;
  const std::string host_file_;
  std::string host_extra_;
  absl::Mutex mu_;
  std::map<std::string, Entry> pods_ ABSL_GUARDED_BY(mu_);
  bool dirty_ ABSL_GUARDED_BY(mu_) = true;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  absl::Mutex write_mu_;
};

// Everything a PodWorker needs, owned by the Node.
struct NodeContext {
  NodeOptions options;
  kube::Client* client = nullptr;
  runtime::Cache* cache = nullptr;
  runtime::EventRecorder* recorder = nullptr;
  Network* network = nullptr;
  HostsWriter* hosts = nullptr;
  std::vector<ImageRule> images;
  std::string ca_pem;
};

class Node {
 public:
  Node(NodeOptions options, kube::Client& client, Backend apiserver, std::string ca_pem);
  ~Node();
  absl::Status Start();
  void Stop();

 private:
  absl::Status Register();
  void HeartbeatLoop();
  void BindLoop();
  void OnPod(const runtime::ObjectPtr& pod);
  void ReconcileClaims();
  void ReapWorkers();

  NodeContext ctx_;
  kube::Client& client_;
  runtime::Cache cache_;
  runtime::EventRecorder recorder_;
  Network network_;
  HostsWriter hosts_;
  ServiceProxy proxy_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;

  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<PodWorker>> workers_ ABSL_GUARDED_BY(mu_);  // by uid
  bool bind_dirty_ ABSL_GUARDED_BY(mu_) = true;
};

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_NODE_H_
