// PodWorker: the pod status it writes back.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"
#include "tools/localnode/env.h"
#include "tools/localnode/pod_worker.h"
#include "tools/localnode/pod_worker_internal.h"
#include "tools/localnode/volumes.h"

namespace quorum::localnode {
namespace {

using pod_worker_internal::kPods;
using pod_worker_internal::Str;
using pod_worker_internal::Time;

}  // namespace

Json PodWorker::ContainerStatus(const Container& c) const {
  Json s = {{"name", Str(c.spec, "name")},
            {"image", Str(c.spec, "image")},
            {"imageID", ""},
            {"restartCount", c.restarts},
            {"ready", c.ready},
            {"started", c.pid > 0 && c.startup_done}};
  if (c.pid > 0) {
    s["containerID"] = absl::StrCat("localnode://", c.pid);
    s["state"] = {{"running", {{"startedAt", Time(c.started_at)}}}};
  } else if (c.terminated && c.waiting_reason.empty()) {
    s["state"] = {{"terminated",
                   {{"exitCode", c.exit_code},
                    {"reason", c.term_reason},
                    {"startedAt", Time(c.started_at)},
                    {"finishedAt", Time(c.finished_at)}}}};
  } else {
    Json w = {{"reason", c.waiting_reason.empty() ? "ContainerCreating" : c.waiting_reason}};
    if (!c.waiting_message.empty()) w["message"] = c.waiting_message;
    s["state"] = {{"waiting", w}};
  }
  if (!c.last_state.empty()) s["lastState"] = c.last_state;
  return s;
}

void PodWorker::WriteStatus() {
  bool all_ready = !main_.empty(), any_running = false;
  for (const Container& c : main_) {
    all_ready &= c.ready && c.pid > 0;
    any_running |= c.pid > 0;
  }
  auto cond = [&](const std::string& type, bool value, const std::string& reason) {
    const std::string v = value ? "True" : "False";
    auto& t = transitions_[type];
    if (t.first != v) t = {v, Time(absl::Now())};
    Json c = {{"type", type}, {"status", v}, {"lastTransitionTime", t.second}};
    if (!value && !reason.empty()) c["reason"] = reason;
    return c;
  };
  Json status = {{"phase", phase_},
                 {"hostIP", ctx_.network->node_ip()},
                 {"hostIPs", Json::array({{{"ip", ctx_.network->node_ip()}}})},
                 {"startTime", Time(start_time_)},
                 {"qosClass", "BestEffort"}};
  if (!ip_.empty()) {
    status["podIP"] = ip_;
    status["podIPs"] = Json::array({{{"ip", ip_}}});
  }
  Json conds = Json::array({cond("PodReadyToStartContainers", !ip_.empty(), ""),
                            cond("Initialized", initialized_, "ContainersNotInitialized"),
                            cond("Ready", all_ready, "ContainersNotReady"),
                            cond("ContainersReady", all_ready, "ContainersNotReady"),
                            cond("PodScheduled", true, "")});
  status["conditions"] = conds;
  if (!pending_message_.empty() && !any_running) status["message"] = pending_message_;
  Json cs = Json::array(), is = Json::array();
  for (const Container& c : main_) cs.push_back(ContainerStatus(c));
  for (const Container& c : init_) is.push_back(ContainerStatus(c));
  status["containerStatuses"] = cs;
  if (!init_.empty()) status["initContainerStatuses"] = is;
  if (status == last_status_) return;
  auto r = ctx_.client->Patch(kPods, ns_, name_, kube::PatchType::kMerge, {{"status", status}},
                              {.subresource = "status"});
  if (r.ok()) {
    last_status_ = status;
  } else if (!absl::IsNotFound(r.status())) {
    spdlog::warn("pod {}/{}: status: {}", ns_, name_, std::string(r.status().message()));
  }
}

}  // namespace quorum::localnode
