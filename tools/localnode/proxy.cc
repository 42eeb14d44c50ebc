#include "tools/localnode/proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace quorum::localnode {

using kube::Json;
namespace {

const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kSlices{"discovery.k8s.io", "v1", "endpointslices"};

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int Connect(const Backend& b, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(b.host.c_str(), std::to_string(b.port).c_str(), &hints, &res) != 0) return -1;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int rc = fd < 0 ? -1 : connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (fd < 0) return -1;
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, timeout_ms) == 1) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
    } else {
      rc = -1;
    }
  }
  if (rc != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

struct ServiceProxy::Listener {
  std::string key;
  std::string ip;
  int fd = -1;
  std::atomic<bool> stop{false};
  std::thread thread;
};

ServiceProxy::ServiceProxy(Network& net, runtime::Cache& cache, Backend apiserver)
    : net_(net), cache_(cache), apiserver_(std::move(apiserver)) {}

ServiceProxy::~ServiceProxy() { Stop(); }

void ServiceProxy::Start() {
  auto wake = runtime::ResourceEventHandler{
      .on_add = [this](const runtime::ObjectPtr&) { Sync(); },
      .on_update = [this](const runtime::ObjectPtr&, const runtime::ObjectPtr&) { Sync(); },
      .on_delete = [this](const runtime::ObjectPtr&) { Sync(); }};
  cache_.Informer(kServices).AddEventHandler(wake);
  cache_.Informer(kSlices).AddEventHandler(wake);
  thread_ = std::thread([this] { Loop(); });
}

void ServiceProxy::Sync() {
  absl::MutexLock l(&mu_);
  dirty_ = true;
}

void ServiceProxy::Stop() {
  if (stop_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  for (auto& [key, l] : listeners_) {
    l->stop = true;
    if (l->thread.joinable()) l->thread.join();
    close(l->fd);
  }
  listeners_.clear();
  absl::MutexLock l(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](int* n) { return *n == 0; }, &connections_),
                       absl::Seconds(5));
}

void ServiceProxy::Loop() {
  while (!stop_) {
    bool dirty;
    {
      absl::MutexLock l(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&dirty_), absl::Milliseconds(500));
      dirty = dirty_;
      dirty_ = false;
    }
    if (dirty && !stop_ && !Reconcile()) absl::SleepFor(absl::Seconds(1));
  }
}

bool ServiceProxy::Reconcile() {
  bool retry_later = false;
  std::map<std::string, std::vector<Backend>> wanted;
  std::map<std::string, std::string> ips;  // key → ip
  for (const runtime::ObjectPtr& svc : cache_.List(kServices)) {
    const Json& spec = (*svc)["spec"];
    const std::string ip = Str(spec, "clusterIP");
    if (ip.empty() || ip == "None") continue;
    const std::string ns = Str((*svc)["metadata"], "namespace");
    const std::string name = Str((*svc)["metadata"], "name");
    std::vector<runtime::ObjectPtr> slices;
    for (const runtime::ObjectPtr& s : cache_.List(kSlices, ns)) {
      if (Str((*s)["metadata"].value("labels", Json::object()), "kubernetes.io/service-name") ==
          name)
        slices.push_back(s);
    }
    for (const Json& port : spec.value("ports", Json::array())) {
      if (port.value("protocol", "TCP") != "TCP") continue;
      const int p = port.value("port", 0);
      const std::string key = absl::StrCat(ip, ":", p);
      ips[key] = ip;
      std::vector<Backend>& backends = wanted[key];
      if (ns == "default" && name == "kubernetes") {
        backends.push_back(apiserver_);
        continue;
      }
      const std::string port_name = Str(port, "name");
      for (const runtime::ObjectPtr& s : slices) {
        int target = 0;
        for (const Json& sp : (*s).value("ports", Json::array()))
          if (Str(sp, "name") == port_name) target = sp.value("port", 0);
        if (target == 0) continue;
        for (const Json& ep : (*s).value("endpoints", Json::array())) {
          const Json& cond = ep.value("conditions", Json::object());
          if (cond.contains("ready") && cond["ready"].is_boolean() && !cond["ready"].get<bool>())
            continue;
          const Json& addrs = ep.value("addresses", Json::array());
          if (!addrs.empty() && addrs[0].is_string())
            backends.push_back({addrs[0].get<std::string>(), target});
        }
      }
    }
  }
  {
    absl::MutexLock l(&mu_);
    backends_ = wanted;
  }
  // Listeners: close the ones no longer wanted, open the new ones.
  std::set<std::string> still_used_ips;
  for (const auto& [key, ip] : ips) still_used_ips.insert(ip);
  for (auto it = listeners_.begin(); it != listeners_.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    it->second->stop = true;
    if (it->second->thread.joinable()) it->second->thread.join();
    close(it->second->fd);
    if (!still_used_ips.contains(it->second->ip)) net_.RemoveServiceIp(it->second->ip);
    it = listeners_.erase(it);
  }
  for (const auto& [key, ip] : ips) {
    if (listeners_.contains(key)) continue;
    if (absl::Status s = net_.AddServiceIp(ip); !s.ok()) {
      spdlog::warn("service proxy: {}", std::string(s.message()));
      retry_later = true;
      continue;
    }
    const int port = std::stoi(key.substr(key.find(':') + 1));
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 128) != 0) {
      spdlog::warn("service proxy: cannot listen on {}: {}", key, strerror(errno));
      close(fd);
      {
        absl::MutexLock l(&mu_);
        dirty_ = true;  // try again on the next round
      }
      retry_later = true;
      continue;
    }
    auto l = std::make_unique<Listener>();
    l->key = key;
    l->ip = ip;
    l->fd = fd;
    Listener* raw = l.get();
    l->thread = std::thread([this, raw] { AcceptLoop(raw); });
    listeners_[key] = std::move(l);
    spdlog::debug("service proxy: listening on {}", key);
  }
  return !retry_later;
}

std::vector<Backend> ServiceProxy::BackendsFor(const std::string& key) {
  absl::MutexLock l(&mu_);
  std::vector<Backend> all = backends_[key];
  if (all.empty()) return all;
  size_t start = next_[key]++ % all.size();
  std::rotate(all.begin(), all.begin() + start, all.end());
  return all;
}

void ServiceProxy::AcceptLoop(Listener* l) {
  while (!l->stop && !stop_) {
    pollfd p{l->fd, POLLIN, 0};
    if (poll(&p, 1, 200) != 1) continue;
    int client = accept4(l->fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    {
      absl::MutexLock lock(&mu_);
      ++connections_;
    }
    std::thread([this, client, key = l->key] {
      int upstream = -1;
      for (const Backend& b : BackendsFor(key)) {
        upstream = Connect(b, 2000);
        if (upstream >= 0) break;
      }
      if (upstream >= 0) {
        Pump(client, upstream);
        close(upstream);
      }
      close(client);
      absl::MutexLock lock(&mu_);
      --connections_;
    }).detach();
  }
}

void ServiceProxy::Pump(int a, int b) {
  char buf[16384];
  bool a_open = true, b_open = true;
  while ((a_open || b_open) && !stop_) {
    pollfd p[2] = {{a, static_cast<short>(a_open ? POLLIN : 0), 0},
                   {b, static_cast<short>(b_open ? POLLIN : 0), 0}};
    int rc = poll(p, 2, 500);
    if (rc < 0 && errno != EINTR) return;
    if (rc <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int from = i == 0 ? a : b, to = i == 0 ? b : a;
      ssize_t n = read(from, buf, sizeof(buf));
      if (n <= 0) {
        if (i == 0)
          a_open = false;
        else
          b_open = false;
        shutdown(to, SHUT_WR);
        if (n < 0) return;
        continue;
      }
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, buf + off, n - off);
        if (w <= 0) return;
        off += w;
      }
    }
  }
}

}  // namespace quorum::localnode
