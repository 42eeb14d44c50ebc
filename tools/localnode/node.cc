#include "tools/localnode/node.h"

#include <fcntl.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "src/kube/errors.h"
#include "tools/localnode/pod_worker.h"
#include "tools/localnode/volumes.h"

namespace quorum::localnode {
namespace {

namespace fs = std::filesystem;
const kube::GroupVersionResource kPods{"", "v1", "pods"};
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};
const kube::GroupVersionResource kServices{"", "v1", "services"};
const kube::GroupVersionResource kSlices{"discovery.k8s.io", "v1", "endpointslices"};
const kube::GroupVersionResource kClaims{"", "v1", "persistentvolumeclaims"};
const kube::GroupVersionResource kVolumes{"", "v1", "persistentvolumes"};
const kube::GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}
std::string MicroNow() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone());
}

// Overwrites `path` in place: it is bind-mounted into pods, so its inode must stay.
void WriteInPlace(const std::string& path, const std::string& data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t off = 0;
  while (off < static_cast<ssize_t>(data.size())) {
    ssize_t w = pwrite(fd, data.data() + off, data.size() - off, off);
    if (w <= 0) break;
    off += w;
  }
  if (ftruncate(fd, data.size()) != 0) { /* keep what was written */
  }
  close(fd);
}

}  // namespace

// ---------------------------------------------------------------- hosts

HostsWriter::HostsWriter(runtime::Cache& cache, std::string host_file)
    : cache_(cache), host_file_(std::move(host_file)) {
  std::ifstream in("/etc/hosts");
  std::stringstream ss;
  ss << in.rdbuf();
  host_extra_ = "# The host's /etc/hosts:\n" + ss.str();
}

void HostsWriter::SetPod(const std::string& uid, PodName name, std::string file,
                         std::string self_fqdn) {
  absl::MutexLock l(&mu_);
  pods_[uid] = Entry{std::move(name), std::move(file), std::move(self_fqdn), true};
  dirty_ = true;
}

void HostsWriter::RemovePod(const std::string& uid) {
  {
    absl::MutexLock l(&mu_);
    pods_.erase(uid);
    dirty_ = true;
  }
  Flush();
}

void HostsWriter::Sync() {
  absl::MutexLock l(&mu_);
  dirty_ = true;
}

void HostsWriter::Flush() {
  absl::MutexLock w(&write_mu_);
  std::vector<PodName> pods;
  std::vector<Entry> entries;
  {
    absl::MutexLock l(&mu_);
    dirty_ = false;
    for (const auto& [_, e] : pods_) {
      pods.push_back(e.name);
      entries.push_back(e);
    }
  }
  std::vector<ServiceName> services;
  for (const runtime::ObjectPtr& svc : cache_.List(kServices)) {
    ServiceName s{Str((*svc)["metadata"], "namespace"),
                  Str((*svc)["metadata"], "name"),
                  Str((*svc)["spec"], "clusterIP"),
                  {}};
    if (s.cluster_ip.empty() || s.cluster_ip == "None") {
      for (const runtime::ObjectPtr& slice : cache_.List(kSlices, s.ns)) {
        if (Str((*slice)["metadata"].value("labels", Json::object()),
                "kubernetes.io/service-name") != s.name)
          continue;
        for (const Json& ep : (*slice).value("endpoints", Json::array()))
          for (const Json& a : ep.value("addresses", Json::array()))
            if (a.is_string()) s.pod_ips.push_back(a.get<std::string>());
      }
    }
    services.push_back(std::move(s));
  }
  for (const Entry& e : entries) {
    WriteInPlace(e.file, RenderHosts(pods, services, e.name.ns, e.name.hostname, e.self_fqdn,
                                     e.name.ip, ""));
  }
  WriteInPlace(host_file_, RenderHosts(pods, services, "", "", "", "", host_extra_));
}

void HostsWriter::Start() {
  auto wake = runtime::ResourceEventHandler{
      .on_add = [this](const runtime::ObjectPtr&) { Sync(); },
      .on_update = [this](const runtime::ObjectPtr&, const runtime::ObjectPtr&) { Sync(); },
      .on_delete = [this](const runtime::ObjectPtr&) { Sync(); }};
  cache_.Informer(kServices).AddEventHandler(wake);
  cache_.Informer(kSlices).AddEventHandler(wake);
  thread_ = std::thread([this] { Loop(); });
}

void HostsWriter::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void HostsWriter::Loop() {
  while (!stop_) {
    bool dirty;
    {
      absl::MutexLock l(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&dirty_), absl::Milliseconds(300));
      dirty = dirty_;
    }
    if (dirty && !stop_) Flush();
  }
}

// ---------------------------------------------------------------- node

Node::Node(NodeOptions options, kube::Client& client, Backend apiserver, std::string ca_pem)
    : client_(client),
      cache_(client, {}),
      recorder_(client, {.component = "kubelet", .host = options.node_name}),
      network_(options.network),
      hosts_(cache_, options.state_dir + "/hosts"),
      proxy_(network_, cache_, std::move(apiserver)) {
  ctx_.options = std::move(options);
  ctx_.client = &client_;
  ctx_.cache = &cache_;
  ctx_.recorder = &recorder_;
  ctx_.network = &network_;
  ctx_.hosts = &hosts_;
  ctx_.ca_pem = std::move(ca_pem);
}

Node::~Node() { Stop(); }

absl::Status Node::Register() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  struct sysinfo si {};
  sysinfo(&si);
  const std::string mem =
      absl::StrCat(static_cast<uint64_t>(si.totalram) * si.mem_unit / 1024, "Ki");
  const Json resources = {{"cpu", std::to_string(cpus)},
                          {"memory", mem},
                          {"pods", "110"},
                          {"ephemeral-storage", "100Gi"}};
  const std::string& name = ctx_.options.node_name;
  Json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata",
                {{"name", name},
                 {"labels",
                  {{"kubernetes.io/hostname", name},
                   {"kubernetes.io/os", "linux"},
                   {"kubernetes.io/arch", "amd64"},
                   {"node.quorum.dev/localnode", "true"}}}}},
               {"spec", {{"podCIDR", ctx_.options.network.pod_prefix + ".0/24"}}}};
  auto applied =
      client_.Apply(kNodes, "", node, {.field_manager = "quorum-localnode", .force = true});
  if (!applied.ok()) return applied.status();
  auto condition = [](const char* type, const char* status, const char* reason) {
    return Json{{"type", type},
                {"status", status},
                {"reason", reason},
                {"lastHeartbeatTime", Now()},
                {"lastTransitionTime", Now()}};
  };
  Json status = {
      {"capacity", resources},
      {"allocatable", resources},
      {"conditions",
       Json::array({condition("Ready", "True", "KubeletReady"),
                    condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                    condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                    condition("PIDPressure", "False", "KubeletHasSufficientPID")})},
      {"addresses", Json::array({{{"type", "InternalIP"}, {"address", network_.node_ip()}},
                                 {{"type", "Hostname"}, {"address", name}}})},
      {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 0}}}}},
      {"nodeInfo",
       {{"machineID", ""},
        {"systemUUID", ""},
        {"bootID", ""},
        {"kernelVersion", ""},
        {"osImage", "quorum-localnode"},
        {"containerRuntimeVersion", "localnode://1"},
        {"kubeletVersion", "v1.36.0-localnode"},
        {"kubeProxyVersion", ""},
        {"operatingSystem", "linux"},
        {"architecture", "amd64"}}}};
  auto r = client_.Patch(kNodes, "", name, kube::PatchType::kMerge, {{"status", status}},
                         {.subresource = "status"});
  return r.status();
}

void Node::HeartbeatLoop() {
  const std::string& name = ctx_.options.node_name;
  absl::Time next_node = absl::Now() + absl::Seconds(30);
  while (!stop_) {
    auto lease = client_.Get(kLeases, "kube-node-lease", name);
    if (absl::IsNotFound(lease.status())) {
      auto c = client_.Create(
          kLeases, "kube-node-lease",
          {{"apiVersion", "coordination.k8s.io/v1"},
           {"kind", "Lease"},
           {"metadata", {{"name", name}, {"namespace", "kube-node-lease"}}},
           {"spec",
            {{"holderIdentity", name}, {"leaseDurationSeconds", 40}, {"renewTime", MicroNow()}}}});
      if (!c.ok()) spdlog::warn("node lease: {}", std::string(c.status().message()));
    } else if (lease.ok()) {
      Json l = *lease;
      l["spec"]["renewTime"] = MicroNow();
      l["spec"]["holderIdentity"] = name;
      auto u = client_.Update(kLeases, "kube-node-lease", l);
      if (!u.ok()) spdlog::warn("node lease: {}", std::string(u.status().message()));
    }
    if (absl::Now() >= next_node) {
      if (absl::Status s = Register(); !s.ok())
        spdlog::warn("node status: {}", std::string(s.message()));
      next_node = absl::Now() + absl::Seconds(30);
    }
    ReconcileClaims();
    ReapWorkers();
    for (int i = 0; i < 20 && !stop_; ++i) absl::SleepFor(absl::Milliseconds(250));
  }
}

// A trivial scheduler: every pending pod goes to this node.
void Node::BindLoop() {
  while (!stop_) {
    {
      absl::MutexLock l(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&bind_dirty_), absl::Seconds(2));
      bind_dirty_ = false;
    }
    for (const runtime::ObjectPtr& pod : cache_.List(kPods)) {
      const Json& spec = (*pod)["spec"];
      const Json& meta = (*pod)["metadata"];
      if (!Str(spec, "nodeName").empty() || meta.contains("deletionTimestamp")) continue;
      const std::string sched = Str(spec, "schedulerName");
      if (!sched.empty() && sched != "default-scheduler") continue;
      const std::string ns = Str(meta, "namespace"), name = Str(meta, "name");
      auto r = client_.CreateSubresource(
          kPods, ns, name, "binding",
          {{"apiVersion", "v1"},
           {"kind", "Binding"},
           {"metadata", {{"name", name}, {"namespace", ns}, {"uid", Str(meta, "uid")}}},
           {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", ctx_.options.node_name}}}});
      if (r.ok()) {
        recorder_.Normal(
            *pod, "Scheduled",
            absl::StrCat("Successfully assigned ", ns, "/", name, " to ", ctx_.options.node_name));
      } else if (!kube::IsConflict(r.status()) && !absl::IsNotFound(r.status())) {
        spdlog::warn("binding {}/{}: {}", ns, name, std::string(r.status().message()));
      }
    }
  }
}

// The local provisioner: each pending claim gets a PersistentVolume on a
// directory under <state_dir>/volumes, bound to it at once.
void Node::ReconcileClaims() {
  for (const runtime::ObjectPtr& pvc : cache_.List(kClaims)) {
    const Json& meta = (*pvc)["metadata"];
    const Json& spec = (*pvc)["spec"];
    if (meta.contains("deletionTimestamp")) continue;
    const std::string ns = Str(meta, "namespace"), name = Str(meta, "name"), uid = Str(meta, "uid");
    const std::string pv_name = "pvc-" + uid;
    if (!Str(spec, "volumeName").empty() && Str((*pvc)["status"], "phase") == "Bound") continue;
    const std::string dir = absl::StrCat(ctx_.options.state_dir, "/volumes/", pv_name);
    std::error_code ec;
    fs::create_directories(dir, ec);
    Json storage = spec.value("resources", Json::object())
                       .value("requests", Json::object())
                       .value("storage", Json("1Gi"));
    Json pv = {
        {"apiVersion", "v1"},
        {"kind", "PersistentVolume"},
        {"metadata",
         {{"name", pv_name}, {"labels", {{"node.quorum.dev/localnode", ctx_.options.node_name}}}}},
        {"spec",
         {{"capacity", {{"storage", storage}}},
          {"accessModes", spec.value("accessModes", Json::array({"ReadWriteOnce"}))},
          {"persistentVolumeReclaimPolicy", "Delete"},
          {"storageClassName", Str(spec, "storageClassName")},
          {"hostPath", {{"path", dir}, {"type", "DirectoryOrCreate"}}},
          {"claimRef",
           {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"namespace", ns},
            {"name", name},
            {"uid", uid}}}}}};
    auto created = client_.Create(kVolumes, "", pv);
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) {
      spdlog::warn("provisioning {}/{}: {}", ns, name, std::string(created.status().message()));
      continue;
    }
    auto pv_status = client_.Patch(kVolumes, "", pv_name, kube::PatchType::kMerge,
                                   {{"status", {{"phase", "Bound"}}}}, {.subresource = "status"});
    (void)pv_status;  // best effort: nothing reads the PV phase
    if (Str(spec, "volumeName").empty()) {
      auto r = client_.Patch(kClaims, ns, name, kube::PatchType::kMerge,
                             {{"spec", {{"volumeName", pv_name}}}});
      if (!r.ok()) {
        spdlog::warn("binding claim {}/{}: {}", ns, name, std::string(r.status().message()));
        continue;
      }
    }
    auto r =
        client_.Patch(kClaims, ns, name, kube::PatchType::kMerge,
                      {{"status",
                        {{"phase", "Bound"},
                         {"accessModes", spec.value("accessModes", Json::array({"ReadWriteOnce"}))},
                         {"capacity", {{"storage", storage}}}}}},
                      {.subresource = "status"});
    if (r.ok()) spdlog::info("claim {}/{} bound to {}", ns, name, pv_name);
  }
  // Reclaim: volumes of this node whose claim is gone.
  for (const runtime::ObjectPtr& pv : cache_.List(kVolumes)) {
    const Json& meta = (*pv)["metadata"];
    if (Str(meta.value("labels", Json::object()), "node.quorum.dev/localnode") !=
        ctx_.options.node_name)
      continue;
    const Json& ref = (*pv)["spec"].value("claimRef", Json::object());
    runtime::ObjectPtr claim = cache_.Get(kClaims, Str(ref, "namespace"), Str(ref, "name"));
    if (claim != nullptr && Str((*claim)["metadata"], "uid") == Str(ref, "uid")) continue;
    if (!cache_.Informer(kClaims).HasSynced()) continue;
    std::error_code ec;
    fs::remove_all(PersistentVolumePath(*pv), ec);
    absl::Status s = client_.Delete(kVolumes, "", Str(meta, "name"));
    if (s.ok()) spdlog::info("reclaimed volume {}", Str(meta, "name"));
  }
}

void Node::OnPod(const runtime::ObjectPtr& pod) {
  const Json& meta = (*pod)["metadata"];
  const Json& spec = (*pod)["spec"];
  if (Str(spec, "nodeName").empty()) {
    absl::MutexLock l(&mu_);
    bind_dirty_ = true;
    return;
  }
  if (Str(spec, "nodeName") != ctx_.options.node_name) return;
  const std::string uid = Str(meta, "uid");
  const std::string phase = Str((*pod)["status"], "phase");
  absl::MutexLock l(&mu_);
  if (stop_ || workers_.contains(uid)) return;
  if (phase == "Succeeded" || phase == "Failed") return;
  auto w = std::make_unique<PodWorker>(ctx_, pod);
  w->Start();
  workers_[uid] = std::move(w);
}

void Node::ReapWorkers() {
  std::vector<std::unique_ptr<PodWorker>> finished;
  {
    absl::MutexLock l(&mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (it->second->done()) {
        finished.push_back(std::move(it->second));
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
  }
  finished.clear();  // joins outside the lock
}

absl::Status Node::Start() {
  auto images = LoadImageTable(ctx_.options.images_file);
  if (!images.ok()) return images.status();
  ctx_.images = *images;
  std::error_code ec;
  fs::create_directories(ctx_.options.state_dir + "/pods", ec);
  fs::create_directories(ctx_.options.state_dir + "/volumes", ec);
  fs::permissions(ctx_.options.state_dir,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  // Leftover pod folders of an earlier run: their processes are gone with the
  // namespaces that Setup() removes.
  for (const auto& e : fs::directory_iterator(ctx_.options.state_dir + "/pods", ec))
    fs::remove_all(e.path(), ec);
  if (absl::Status s = network_.Setup(); !s.ok()) return s;
  if (absl::Status s = Register(); !s.ok()) return s;

  auto pods = runtime::ResourceEventHandler{
      .on_add = [this](const runtime::ObjectPtr& p) { OnPod(p); },
      .on_update = [this](const runtime::ObjectPtr&, const runtime::ObjectPtr& p) { OnPod(p); },
      .on_delete = nullptr};
  cache_.Informer(kPods).AddEventHandler(pods);
  cache_.Informer(kClaims);
  cache_.Informer(kVolumes, /*cluster_scoped=*/true);
  hosts_.Start();
  proxy_.Start();
  cache_.Start();
  if (!cache_.WaitForSync(absl::Seconds(60))) return absl::DeadlineExceededError("cache sync");
  threads_.emplace_back([this] { HeartbeatLoop(); });
  threads_.emplace_back([this] { BindLoop(); });
  spdlog::info("node {} ready (bridge {}, address {})", ctx_.options.node_name, network_.bridge(),
               network_.node_ip());
  return absl::OkStatus();
}

void Node::Stop() {
  if (stop_.exchange(true)) return;
  spdlog::info("node {} stopping", ctx_.options.node_name);
  std::map<std::string, std::unique_ptr<PodWorker>> workers;
  {
    absl::MutexLock l(&mu_);
    workers.swap(workers_);
  }
  for (auto& [_, w] : workers) w->Shutdown(ctx_.options.shutdown_grace);
  workers.clear();  // joins
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  proxy_.Stop();
  hosts_.Stop();
  cache_.Stop();
  network_.Teardown();
  recorder_.Flush();
}

}  // namespace quorum::localnode
