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
#include "tools/localnode/volumes.h"

namespace quorum::localnode {
namespace {

namespace fs = std::filesystem;
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

constexpr absl::Duration kTick = absl::Milliseconds(200);
constexpr absl::Duration kMaxBackoff = absl::Seconds(20);

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Time(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

int IntOr(const Json& j, const char* key, int fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::optional<int64_t> OptInt(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it != j.end() && it->is_number_integer()) return it->get<int64_t>();
  return std::nullopt;
}

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

bool HttpProbe(const std::string& url, int timeout_s) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return false;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s) * 1000);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  CURLcode rc = curl_easy_perform(curl);
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  return rc == CURLE_OK && code >= 200 && code < 400;
}

bool TcpProbe(const std::string& host, int port, int timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, timeout_s * 1000) == 1) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      ok = err == 0;
    }
  }
  close(fd);
  return ok;
}

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

bool PodWorker::ProbeOnce(const Container& c, const Json& probe) {
  const int timeout = std::max(1, IntOr(probe, "timeoutSeconds", 1));
  if (probe.contains("httpGet")) {
    const Json& h = probe["httpGet"];
    std::string host = Str(h, "host");
    if (host.empty()) host = ip_;
    std::string scheme = Str(h, "scheme");
    if (scheme.empty()) scheme = "HTTP";
    std::string path = Str(h, "path");
    if (path.empty() || path[0] != '/') path = "/" + path;
    return HttpProbe(absl::StrCat(scheme == "HTTPS" ? "https" : "http", "://", host, ":",
                                  ResolvePort(h.value("port", Json()), c), path),
                     timeout);
  }
  if (probe.contains("tcpSocket")) {
    const Json& t = probe["tcpSocket"];
    std::string host = Str(t, "host");
    return TcpProbe(host.empty() ? ip_ : host, std::stoi(ResolvePort(t.value("port", Json()), c)),
                    timeout);
  }
  if (probe.contains("exec")) {
    SpawnSpec spec;
    for (const Json& a : probe["exec"].value("command", Json::array()))
      spec.argv.push_back(a.get<std::string>());
    if (spec.argv.empty()) return false;
    spec.argv[0] = LookPath(spec.argv[0], "/usr/local/bin:/usr/bin:/bin");
    if (spec.argv[0].empty()) return false;
    spec.netns_path = netns_path_;
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
    auto mounts = ContainerMounts(pod_, c.spec, volumes_);
    if (mounts.ok()) spec.mounts = *mounts;
    spec.mounts.push_back({pod_dir_ + "/hosts", "/etc/hosts", true});
    auto pid = Spawn(spec);
    if (!pid.ok()) return false;
    const absl::Time deadline = absl::Now() + absl::Seconds(timeout);
    int status = 0;
    while (absl::Now() < deadline) {
      if (waitpid(*pid, &status, WNOHANG) == *pid)
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
      absl::SleepFor(absl::Milliseconds(20));
    }
    SignalGroup(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
    return false;
  }
  return true;  // grpc and unknown probe kinds: not supported, treated as passing
}

void PodWorker::RunProbes(Container& c) {
  if (c.pid <= 0) return;
  const absl::Time now = absl::Now();
  auto due = [&](Probe& p) {
    if (!p.spec.is_object() || now < p.next) return false;
    p.next = now + absl::Seconds(std::max(1, IntOr(p.spec, "periodSeconds", 10)));
    return true;
  };
  auto record = [&](Probe& p, bool ok) {
    if (ok) {
      ++p.successes;
      p.failures = 0;
    } else {
      ++p.failures;
      p.successes = 0;
    }
  };
  if (!c.startup_done) {
    if (!due(c.startup)) return;
    record(c.startup, ProbeOnce(c, c.startup.spec));
    if (c.startup.successes >= 1) {
      c.startup_done = true;
      // Liveness and readiness start right away once the container started.
      c.readiness.next = c.liveness.next = now;
    } else if (c.startup.failures >= IntOr(c.startup.spec, "failureThreshold", 3)) {
      ctx_.recorder->Warning(pod_, "Unhealthy",
                             absl::StrCat("Startup probe failed: container ", Str(c.spec, "name"),
                                          " will be restarted"));
      StopContainer(c, absl::Seconds(IntOr(pod_["spec"], "terminationGracePeriodSeconds", 30)));
    }
    return;
  }
  if (due(c.liveness)) {
    record(c.liveness, ProbeOnce(c, c.liveness.spec));
    if (c.liveness.failures >= IntOr(c.liveness.spec, "failureThreshold", 3)) {
      ctx_.recorder->Warning(pod_, "Unhealthy",
                             absl::StrCat("Liveness probe failed: container ", Str(c.spec, "name"),
                                          " will be restarted"));
      StopContainer(c, absl::Seconds(IntOr(pod_["spec"], "terminationGracePeriodSeconds", 30)));
      return;
    }
  }
  if (!c.readiness.spec.is_object()) {
    c.ready = true;
  } else if (due(c.readiness)) {
    record(c.readiness, ProbeOnce(c, c.readiness.spec));
    if (c.readiness.successes >= IntOr(c.readiness.spec, "successThreshold", 1)) c.ready = true;
    if (c.readiness.failures >= IntOr(c.readiness.spec, "failureThreshold", 3)) c.ready = false;
  }
}

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
