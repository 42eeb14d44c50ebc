// PodWorker: starting, reaping and stopping container processes.
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

namespace fs = std::filesystem;
using pod_worker_internal::IntOr;
using pod_worker_internal::kConfigMaps;
using pod_worker_internal::kSecrets;
using pod_worker_internal::kServices;
using pod_worker_internal::OptInt;
using pod_worker_internal::Str;
using pod_worker_internal::Time;

}  // namespace

std::string PodWorker::ResolvePort(const Json& port, const Container& c) const {
  if (port.is_number_integer()) return std::to_string(port.get<int>());
  if (port.is_string()) {
    const std::string name = port.get<std::string>();
    for (const Json& p : c.spec.value("ports", Json::array()))
      if (Str(p, "name") == name) return std::to_string(IntOr(p, "containerPort", 0));
    return name;  // a number as a string
  }
  return "0";
}

bool PodWorker::StartContainer(Container& c) {
  const std::string cname = Str(c.spec, "name");
  const std::string image = Str(c.spec, "image");
  std::optional<ImageRule> rule = MatchImage(ctx_.images, image);
  auto wait = [&](std::string reason, std::string message) {
    if (c.waiting_message != message) {
      ctx_.recorder->Warning(pod_, "Failed", absl::StrCat("container ", cname, ": ", message));
      spdlog::warn("pod {}/{} container {}: {}", ns_, name_, cname, message);
    }
    c.waiting_reason = std::move(reason);
    c.waiting_message = std::move(message);
    c.next_start = absl::Now() + absl::Seconds(5);
    return false;
  };
  if (!rule) {
    return wait("ImageNotMapped",
                absl::StrCat("image \"", image, "\" has no program in the node's image table (",
                             ctx_.options.images_file, ")"));
  }
  std::string path = absl::StrJoin(rule->path, ":");
  path += (path.empty() ? "" : ":") +
          std::string("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");

  std::vector<std::pair<std::string, std::string>> base = {
      {"PATH", path}, {"HOSTNAME", hostname_}, {"HOME", "/tmp"}};
  if (runtime::ObjectPtr k = ctx_.cache->Get(kServices, "default", "kubernetes")) {
    const std::string ip = Str((*k)["spec"], "clusterIP");
    base.insert(base.end(), {{"KUBERNETES_SERVICE_HOST", ip},
                             {"KUBERNETES_SERVICE_PORT", "443"},
                             {"KUBERNETES_SERVICE_PORT_HTTPS", "443"},
                             {"KUBERNETES_PORT", absl::StrCat("tcp://", ip, ":443")},
                             {"KUBERNETES_PORT_443_TCP", absl::StrCat("tcp://", ip, ":443")},
                             {"KUBERNETES_PORT_443_TCP_PROTO", "tcp"},
                             {"KUBERNETES_PORT_443_TCP_PORT", "443"},
                             {"KUBERNETES_PORT_443_TCP_ADDR", ip}});
  }
  ObjectLookup lookup = [this](const std::string& resource,
                               const std::string& name) -> absl::StatusOr<Json> {
    return ctx_.client->Get(resource == "secrets" ? kSecrets : kConfigMaps, ns_, name);
  };
  auto env = ContainerEnv(pod_, c.spec, base, lookup);
  if (!env.ok()) return wait("CreateContainerConfigError", std::string(env.status().message()));

  std::vector<std::string> argv;
  const Json& command = c.spec.value("command", Json::array());
  const Json& args = c.spec.value("args", Json::array());
  if (!command.empty()) {
    for (const Json& a : command) argv.push_back(Expand(a.get<std::string>(), *env));
  } else {
    argv = rule->entrypoint;
  }
  for (const Json& a : args) argv.push_back(Expand(a.get<std::string>(), *env));
  if (argv.empty()) return wait("CreateContainerError", "no command and no image entrypoint");
  const std::string exe = LookPath(argv[0], path);
  if (exe.empty()) {
    return wait("CreateContainerError",
                absl::StrCat("executable \"", argv[0], "\" not found in the image's PATH ", path));
  }
  argv[0] = exe;

  auto mounts = ContainerMounts(pod_, c.spec, volumes_);
  if (!mounts.ok())
    return wait("CreateContainerConfigError", std::string(mounts.status().message()));
  mounts->push_back({pod_dir_ + "/hosts", "/etc/hosts", true});
  mounts->push_back({pod_dir_ + "/resolv.conf", "/etc/resolv.conf", true});

  SpawnSpec spec;
  spec.argv = argv;
  for (const auto& [k, v] : *env) spec.env.push_back(k + "=" + v);
  spec.netns_path = netns_path_;
  spec.hostname = hostname_;
  spec.mounts = *mounts;
  const Json& psc = pod_["spec"].value("securityContext", Json::object());
  const Json& csc = c.spec.value("securityContext", Json::object());
  auto uid = OptInt(csc, "runAsUser");
  if (!uid) uid = OptInt(psc, "runAsUser");
  auto gid = OptInt(csc, "runAsGroup");
  if (!gid) gid = OptInt(psc, "runAsGroup");
  if (uid) spec.uid = static_cast<uid_t>(*uid);
  if (gid)
    spec.gid = static_cast<gid_t>(*gid);
  else if (uid)
    spec.gid = 0;
  if (auto g = OptInt(psc, "fsGroup")) spec.groups.push_back(static_cast<gid_t>(*g));
  for (const Json& g : psc.value("supplementalGroups", Json::array()))
    if (g.is_number_integer()) spec.groups.push_back(g.get<gid_t>());
  if (spec.uid && *spec.uid != 0) {
    // Programs under root's private home stay reachable for other users.
    std::set<std::string> dirs;
    for (const std::string& d : rule->path)
      if (d.rfind("/root/", 0) == 0) dirs.insert(d);
    std::error_code ec;
    const std::string real = fs::canonical(exe, ec).parent_path().string();
    if (!ec && real.rfind("/root/", 0) == 0) dirs.insert(real);
    spec.root_exposed.assign(dirs.begin(), dirs.end());
  }
  if (spec.uid && getpwuid(*spec.uid) == nullptr) {
    // Images carry their own /etc/passwd (initdb refuses a uid without a
    // name): the pod gets the host's plus an entry for its user.
    const std::string user =
        absl::StrContains(image, "postgres") ? "postgres" : absl::StrCat("u", *spec.uid);
    const gid_t g = spec.gid.value_or(0);
    std::ifstream in("/etc/passwd");
    std::stringstream passwd;
    passwd << in.rdbuf() << user << ":x:" << *spec.uid << ":" << g
           << ":quorum-localnode:/tmp:/bin/sh\n";
    std::ofstream(pod_dir_ + "/passwd") << passwd.str();
    spec.mounts.push_back({pod_dir_ + "/passwd", "/etc/passwd", true});
    if (getgrgid(g) == nullptr) {
      std::ifstream gin("/etc/group");
      std::stringstream group;
      group << gin.rdbuf() << user << ":x:" << g << ":\n";
      std::ofstream(pod_dir_ + "/group") << group.str();
      spec.mounts.push_back({pod_dir_ + "/group", "/etc/group", true});
    }
  }
  spec.workdir = Str(c.spec, "workingDir");
  spec.output_path = absl::StrCat(pod_dir_, "/logs/", cname, ".log");
  {
    std::ofstream log(spec.output_path, std::ios::app);
    log << "---- " << Time(absl::Now()) << " starting: " << absl::StrJoin(argv, " ") << "\n";
  }
  auto pid = Spawn(spec);
  if (!pid.ok()) return wait("RunContainerError", std::string(pid.status().message()));
  c.pid = *pid;
  c.started_at = absl::Now();
  c.started_once = true;
  c.terminated = false;
  c.waiting_reason.clear();
  c.waiting_message.clear();
  c.ready = false;
  c.startup_done = c.startup.spec.is_null();
  for (Probe* p : {&c.startup, &c.liveness, &c.readiness}) {
    p->successes = p->failures = 0;
    p->next = c.started_at +
              absl::Seconds(p->spec.is_object() ? IntOr(p->spec, "initialDelaySeconds", 0) : 0);
  }
  ctx_.recorder->Normal(pod_, "Started", absl::StrCat("Started container ", cname));
  spdlog::info("pod {}/{}: started container {} (pid {})", ns_, name_, cname, c.pid);
  return true;
}

void PodWorker::Reap(Container& c) {
  if (c.pid <= 0) return;
  int status = 0;
  pid_t r = waitpid(c.pid, &status, WNOHANG);
  if (r != c.pid) return;
  SignalGroup(c.pid, SIGKILL);  // whatever it left in its group
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  c.term_reason = c.exit_code == 0 ? "Completed" : "Error";
  c.finished_at = absl::Now();
  c.terminated = true;
  c.ready = false;
  c.pid = 0;
  spdlog::info("pod {}/{}: container {} exited with {}", ns_, name_, Str(c.spec, "name"),
               c.exit_code);
}

void PodWorker::StopContainer(Container& c, absl::Duration grace) {
  if (c.pid <= 0) return;
  SignalGroup(c.pid, SIGTERM);
  const absl::Time deadline = absl::Now() + grace;
  while (c.pid > 0 && absl::Now() < deadline) {
    Reap(c);
    if (c.pid > 0) absl::SleepFor(absl::Milliseconds(50));
  }
  if (c.pid > 0) {
    SignalGroup(c.pid, SIGKILL);
    waitpid(c.pid, nullptr, 0);
    c.exit_code = 137;
    c.term_reason = "Error";
    c.finished_at = absl::Now();
    c.terminated = true;
    c.pid = 0;
  }
}

}  // namespace quorum::localnode
