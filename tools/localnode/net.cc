#include "tools/localnode/net.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cstdio>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "spdlog/spdlog.h"
#include "tools/localnode/process.h"

namespace quorum::localnode {
namespace {

std::string Hex(size_t v, int digits) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%0*zx", digits, v);
  return std::string(buf).substr(0, digits);
}

void Quiet(const std::vector<std::string>& argv) { Run(argv); }

void DeleteNetns(const std::string& name) {
  const std::string path = Network::NetnsPath(name);
  KillNetnsProcesses(path);
  Quiet({"ip", "netns", "delete", name});
  umount2(path.c_str(), MNT_DETACH);
  unlink(path.c_str());
}

}  // namespace

std::string Network::NetnsName(const std::string& pod_uid) const {
  return config_.instance + "-" + pod_uid.substr(0, 13);
}

void CleanupInstance(const NetworkConfig& config) {
  RunResult list = Run({"ip", "netns", "list"});
  for (absl::string_view line : absl::StrSplit(list.output, '\n', absl::SkipEmpty())) {
    std::string name(line.substr(0, line.find(' ')));
    if (absl::StartsWith(name, config.instance + "-")) {
      spdlog::info("removing leftover network namespace {}", name);
      DeleteNetns(name);
    }
  }
  const std::string bridge = config.instance + "-br";
  if (Run({"ip", "link", "show", bridge}).exit_code == 0) {
    spdlog::info("removing leftover bridge {}", bridge);
    Quiet({"ip", "link", "delete", bridge});
  }
  Quiet({"ip", "route", "delete", "unreachable", config.service_cidr});
}

absl::Status Network::Setup() {
  CleanupInstance(config_);
  const std::string br = bridge();
  if (absl::Status s = RunOk({"ip", "link", "add", br, "type", "bridge"}); !s.ok()) return s;
  if (absl::Status s = RunOk({"ip", "addr", "add", node_ip() + "/24", "dev", br}); !s.ok())
    return s;
  if (absl::Status s = RunOk({"ip", "link", "set", br, "up"}); !s.ok()) return s;
  return RunOk({"ip", "route", "replace", "unreachable", config_.service_cidr});
}

void Network::Teardown() {
  {
    absl::MutexLock l(&mu_);
    pod_ips_.clear();
    service_ips_.clear();
  }
  CleanupInstance(config_);
}

absl::StatusOr<std::string> Network::AddPod(const std::string& pod_uid) {
  std::string ip;
  {
    absl::MutexLock l(&mu_);
    if (auto it = pod_ips_.find(pod_uid); it != pod_ips_.end()) return it->second;
    std::set<std::string> used;
    for (const auto& [_, v] : pod_ips_) used.insert(v);
    // Start after the last one used, so a fresh pod rarely gets a just-freed address.
    static int next = 2;
    for (int i = 0; i < 253 && ip.empty(); ++i) {
      int host = 2 + (next - 2 + i) % 253;
      std::string candidate = absl::StrCat(config_.pod_prefix, ".", host);
      if (!used.contains(candidate)) {
        ip = candidate;
        next = host + 1;
      }
    }
    if (ip.empty()) return absl::ResourceExhaustedError("no free pod address");
    pod_ips_[pod_uid] = ip;
  }
  const std::string ns = NetnsName(pod_uid);
  const std::string veth = "qv" + Hex(std::hash<std::string>()(ns), 11);
  DeleteNetns(ns);
  std::vector<std::vector<std::string>> steps = {
      {"ip", "netns", "add", ns},
      {"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
      {"ip", "link", "set", veth, "master", bridge(), "up"},
      {"ip", "-n", ns, "link", "set", "lo", "up"},
      {"ip", "-n", ns, "addr", "add", ip + "/24", "dev", "eth0"},
      {"ip", "-n", ns, "link", "set", "eth0", "up"},
      {"ip", "-n", ns, "route", "add", config_.service_cidr, "via", node_ip()},
  };
  for (const auto& step : steps) {
    if (absl::Status s = RunOk(step); !s.ok()) {
      RemovePod(pod_uid);
      return s;
    }
  }
  return ip;
}

void Network::RemovePod(const std::string& pod_uid) {
  DeleteNetns(NetnsName(pod_uid));
  absl::MutexLock l(&mu_);
  pod_ips_.erase(pod_uid);
}

absl::Status Network::AddServiceIp(const std::string& ip) {
  {
    absl::MutexLock l(&mu_);
    if (!service_ips_.insert(ip).second) return absl::OkStatus();
  }
  RunResult r = Run({"ip", "addr", "add", ip + "/32", "dev", bridge()});
  if (r.exit_code != 0 && !absl::StrContains(r.output, "File exists")) {
    absl::MutexLock l(&mu_);
    service_ips_.erase(ip);
    return absl::InternalError(absl::StrCat("adding ", ip, ": ", r.output));
  }
  return absl::OkStatus();
}

void Network::RemoveServiceIp(const std::string& ip) {
  {
    absl::MutexLock l(&mu_);
    if (service_ips_.erase(ip) == 0) return;
  }
  Quiet({"ip", "addr", "delete", ip + "/32", "dev", bridge()});
}

}  // namespace quorum::localnode
