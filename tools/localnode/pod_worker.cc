// PodWorker: its life cycle (set-up, the run loop, teardown).
#include "tools/localnode/pod_worker.h"

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
#include "tools/localnode/pod_worker_internal.h"
#include "tools/localnode/volumes.h"

namespace quorum::localnode {
namespace {

namespace fs = std::filesystem;
using pod_worker_internal::IntOr;
using pod_worker_internal::kMaxBackoff;
using pod_worker_internal::kPods;
using pod_worker_internal::kTick;
using pod_worker_internal::OptInt;
using pod_worker_internal::Str;
using pod_worker_internal::Time;

}  // namespace

PodWorker::PodWorker(NodeContext& ctx, const runtime::ObjectPtr& pod)
    : ctx_(ctx),
      pod_(*pod),
      uid_(Str((*pod)["metadata"], "uid")),
      ns_(Str((*pod)["metadata"], "namespace")),
      name_(Str((*pod)["metadata"], "name")) {
  pod_dir_ = absl::StrCat(ctx_.options.state_dir, "/pods/", ns_, "_", name_, "_", uid_);
  for (const Json& c : pod_["spec"].value("initContainers", Json::array())) {
    Container k;
    k.spec = c;
    k.init = true;
    k.waiting_reason = "PodInitializing";
    init_.push_back(std::move(k));
  }
  for (const Json& c : pod_["spec"].value("containers", Json::array())) {
    Container k;
    k.spec = c;
    k.startup.spec = c.value("startupProbe", Json());
    k.liveness.spec = c.value("livenessProbe", Json());
    k.readiness.spec = c.value("readinessProbe", Json());
    if (!init_.empty()) k.waiting_reason = "PodInitializing";
    main_.push_back(std::move(k));
  }
  hostname_ = Str(pod_["spec"], "hostname");
  if (hostname_.empty()) hostname_ = name_;
  const std::string sub = Str(pod_["spec"], "subdomain");
  if (!sub.empty()) fqdn_ = absl::StrCat(hostname_, ".", sub, ".", ns_, ".svc.cluster.local");
}

PodWorker::~PodWorker() {
  Shutdown(absl::ZeroDuration());
  if (thread_.joinable()) thread_.join();
}

void PodWorker::Start() {
  start_time_ = absl::Now();
  thread_ = std::thread([this] { Run(); });
}

void PodWorker::Shutdown(absl::Duration grace) {
  shutdown_grace_ms_ = absl::ToInt64Milliseconds(grace);
  shutdown_ = true;
}

runtime::ObjectPtr PodWorker::Current() const {
  runtime::ObjectPtr p = ctx_.cache->Get(kPods, ns_, name_);
  if (p == nullptr || Str((*p)["metadata"], "uid") != uid_) return nullptr;
  return p;
}

bool PodWorker::Setup() {
  std::error_code ec;
  fs::create_directories(pod_dir_ + "/logs", ec);
  if (ip_.empty()) {
    auto ip = ctx_.network->AddPod(uid_);
    if (!ip.ok()) {
      pending_reason_ = "NetworkNotReady";
      pending_message_ = std::string(ip.status().message());
      return false;
    }
    ip_ = *ip;
    netns_path_ = Network::NetnsPath(ctx_.network->NetnsName(uid_));
    pod_["status"]["podIP"] = ip_;
    {
      std::ofstream(pod_dir_ + "/hosts").flush();
      std::ofstream resolv(pod_dir_ + "/resolv.conf");
      resolv << "# quorum-localnode: names resolve through /etc/hosts only\n"
             << "nameserver 127.0.0.1\nsearch " << ns_ << ".svc.cluster.local svc.cluster.local "
             << "cluster.local\noptions ndots:5 attempts:1 timeout:1\n";
    }
    ctx_.hosts->SetPod(uid_, {ns_, hostname_, Str(pod_["spec"], "subdomain"), ip_},
                       pod_dir_ + "/hosts", fqdn_);
    ctx_.hosts->Flush();
  }
  VolumeContext vctx{ctx_.client, pod_dir_, ctx_.ca_pem, std::nullopt};
  if (auto g = OptInt(pod_["spec"].value("securityContext", Json::object()), "fsGroup"))
    vctx.fs_group = static_cast<gid_t>(*g);
  auto volumes = PrepareVolumes(vctx, pod_);
  if (!volumes.ok()) {
    const std::string msg(volumes.status().message());
    if (pending_message_ != msg) {
      ctx_.recorder->Warning(pod_, "FailedMount", msg);
      spdlog::warn("pod {}/{}: {}", ns_, name_, msg);
    }
    pending_reason_ = "ContainerCreating";
    pending_message_ = msg;
    return false;
  }
  volumes_ = *volumes;
  pending_reason_.clear();
  pending_message_.clear();
  return true;
}

void PodWorker::Teardown(bool delete_object) {
  ctx_.hosts->RemovePod(uid_);
  absl::Duration grace = absl::Seconds(IntOr(pod_["spec"], "terminationGracePeriodSeconds", 30));
  if (auto g = OptInt(pod_["metadata"], "deletionGracePeriodSeconds")) grace = absl::Seconds(*g);
  if (shutdown_) grace = std::min(grace, absl::Milliseconds(shutdown_grace_ms_.load()));
  // Containers get the grace period together.
  const absl::Time deadline = absl::Now() + grace;
  for (std::vector<Container>* list : {&main_, &init_})
    for (Container& c : *list)
      if (c.pid > 0) SignalGroup(c.pid, SIGTERM);
  for (std::vector<Container>* list : {&main_, &init_})
    for (Container& c : *list)
      StopContainer(c, std::max(absl::ZeroDuration(), deadline - absl::Now()));
  if (!netns_path_.empty()) KillNetnsProcesses(netns_path_);
  ctx_.network->RemovePod(uid_);
  std::error_code ec;
  fs::remove_all(pod_dir_ + "/volumes", ec);  // emptyDir, secrets; claims live elsewhere
  if (delete_object) {
    kube::DeleteOptions opts;
    opts.grace_period_seconds = 0;
    opts.precondition_uid = uid_;
    absl::Status s = ctx_.client->Delete(kPods, ns_, name_, opts);
    if (!s.ok() && !absl::IsNotFound(s) && !absl::IsFailedPrecondition(s))
      spdlog::warn("pod {}/{}: final delete: {}", ns_, name_, std::string(s.message()));
  }
  spdlog::info("pod {}/{}: torn down", ns_, name_);
}

void PodWorker::Run() {
  const std::string policy = pod_["spec"].value("restartPolicy", "Always");
  bool setup_done = false;
  absl::Time next_setup;
  while (true) {
    runtime::ObjectPtr cur = Current();
    if (shutdown_) {
      Teardown(false);
      break;
    }
    if (cur == nullptr) {  // deleted (force) or replaced
      Teardown(false);
      break;
    }
    pod_["metadata"] = (*cur)["metadata"];
    if ((*cur)["metadata"].contains("deletionTimestamp")) {
      Teardown(true);
      break;
    }
    const bool terminal = phase_ == "Succeeded" || phase_ == "Failed";
    if (!setup_done && !terminal && absl::Now() >= next_setup) {
      setup_done = Setup();
      if (!setup_done) next_setup = absl::Now() + absl::Seconds(2);
    }
    if (setup_done && !terminal) {
      // Init containers, one at a time.
      while (!initialized_ && init_next_ < init_.size()) {
        Container& c = init_[init_next_];
        Reap(c);
        if (c.pid > 0) break;
        if (c.terminated && c.exit_code == 0 && c.waiting_reason.empty()) {
          ++init_next_;
          continue;
        }
        if (c.terminated && c.waiting_reason.empty()) {
          if (policy == "Never") {
            phase_ = "Failed";
            break;
          }
          c.last_state = {{"terminated", {{"exitCode", c.exit_code}, {"reason", c.term_reason}}}};
          ++c.restarts;
          c.next_start = absl::Now() + c.backoff;
          c.backoff = std::min(c.backoff * 2, kMaxBackoff);
          c.waiting_reason = "CrashLoopBackOff";
          c.waiting_message = "back-off restarting failed init container";
        }
        if (absl::Now() >= c.next_start) StartContainer(c);
        break;
      }
      if (!initialized_ && init_next_ >= init_.size()) {
        initialized_ = true;
        for (Container& c : main_) c.waiting_reason = "ContainerCreating";
      }
      if (initialized_) {
        bool all_done = true, any_failed = false;
        for (Container& c : main_) {
          Reap(c);
          if (c.pid > 0) {
            RunProbes(c);
            Reap(c);
          }
          if (c.pid > 0) {
            all_done = false;
            continue;
          }
          if (c.terminated && c.waiting_reason.empty()) {
            const bool restart = policy == "Always" || (policy == "OnFailure" && c.exit_code != 0);
            if (!restart) {
              any_failed |= c.exit_code != 0;
              continue;
            }
            c.last_state = {{"terminated",
                             {{"exitCode", c.exit_code},
                              {"reason", c.term_reason},
                              {"startedAt", Time(c.started_at)},
                              {"finishedAt", Time(c.finished_at)}}}};
            if (c.finished_at - c.started_at > absl::Seconds(30)) c.backoff = absl::Seconds(1);
            ++c.restarts;
            c.next_start = absl::Now() + c.backoff;
            c.backoff = std::min(c.backoff * 2, kMaxBackoff);
            c.waiting_reason = "CrashLoopBackOff";
            c.waiting_message =
                absl::StrCat("back-off restarting failed container ", Str(c.spec, "name"));
          }
          all_done = false;
          if (absl::Now() >= c.next_start) StartContainer(c);
        }
        bool any_running = false;
        for (const Container& c : main_) any_running |= c.pid > 0;
        if (all_done && !main_.empty()) {
          phase_ = any_failed ? "Failed" : "Succeeded";
        } else if (any_running) {
          phase_ = "Running";
        }
      }
    }
    WriteStatus();
    absl::SleepFor(kTick);
  }
  done_ = true;
}

}  // namespace quorum::localnode
