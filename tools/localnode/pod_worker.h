// One pod's life on the node, on a thread of its own: network namespace,
// hosts file, volumes, init containers in order, then the containers as
// processes with probes, restarts (restartPolicy, exponential backoff capped
// at 20 s), and the pod's status written back whenever it changes. A
// deletionTimestamp stops the containers (SIGTERM, then SIGKILL after the
// grace period) and finishes the deletion; a pod that disappeared is torn
// down the same way. Containers are forked from this thread, so they die
// with it (parent-death signal) even if the node crashes.
#ifndef QUORUM_TOOLS_LOCALNODE_POD_WORKER_H_
#define QUORUM_TOOLS_LOCALNODE_POD_WORKER_H_

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "src/runtime/store.h"
#include "tools/localnode/node.h"
#include "tools/localnode/process.h"

namespace quorum::localnode {

class PodWorker {
 public:
  PodWorker(NodeContext& ctx, const runtime::ObjectPtr& pod);
  ~PodWorker();  // Shutdown(0) and join

  void Start();
  // Stops the containers within `grace` and tears the pod down (node shutdown).
  void Shutdown(absl::Duration grace);
  bool done() const { return done_; }
  const std::string& uid() const { return uid_; }

 private:
  struct Probe {
    Json spec;
    absl::Time next;
    int successes = 0, failures = 0;
  };
  struct Container {
    Json spec;
    bool init = false;
    pid_t pid = 0;
    int restarts = 0;
    bool started_once = false;
    absl::Time started_at, finished_at, next_start;
    absl::Duration backoff = absl::Seconds(1);
    int exit_code = 0;
    bool terminated = false;
    std::string waiting_reason = "ContainerCreating", waiting_message, term_reason;
    Json last_state = Json::object();
    bool ready = false, startup_done = false;
    Probe startup, liveness, readiness;
  };

  void Run();
  bool Setup();
  bool StartContainer(Container& c);
  void StopContainer(Container& c, absl::Duration grace);
  void Reap(Container& c);
  void RunProbes(Container& c);
  bool ProbeOnce(const Container& c, const Json& probe);
  void WriteStatus();
  Json ContainerStatus(const Container& c) const;
  runtime::ObjectPtr Current() const;
  void Teardown(bool delete_object);
  std::string ResolvePort(const Json& port, const Container& c) const;

  NodeContext& ctx_;
  Json pod_;  // latest spec seen
  const std::string uid_, ns_, name_;
  std::string pod_dir_, ip_, netns_path_, hostname_, fqdn_;
  std::map<std::string, std::string> volumes_;
  std::vector<Container> init_, main_;
  size_t init_next_ = 0;
  bool initialized_ = false;
  std::string phase_ = "Pending";
  std::string pending_reason_, pending_message_;
  absl::Time start_time_;
  Json last_status_;
  std::map<std::string, std::pair<std::string, std::string>> transitions_;  // cond → (status, time)
  std::atomic<bool> shutdown_{false};
  std::atomic<int64_t> shutdown_grace_ms_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace quorum::localnode

#endif  // QUORUM_TOOLS_LOCALNODE_POD_WORKER_H_
