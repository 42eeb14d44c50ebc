#include "tools/localnode/volumes.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/localnode/env.h"

namespace quorum::localnode {
namespace {

namespace fs = std::filesystem;

const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kClaims{"", "v1", "persistentvolumeclaims"};
const kube::GroupVersionResource kVolumes{"", "v1", "persistentvolumes"};
const kube::GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

absl::Status WriteFile(const VolumeContext& ctx, const fs::path& path, const std::string& data,
                       int mode) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
    out << data;
  }
  int m = mode;
  if (ctx.fs_group) {
    m |= (mode & 0400) ? 0040 : 0;
    if (chown(tmp.c_str(), 0, *ctx.fs_group) != 0) { /* best effort */
    }
  }
  chmod(tmp.c_str(), m);
  fs::rename(tmp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat("rename ", path.string(), ": ", ec.message()));
  return absl::OkStatus();
}

void MakeSharedDir(const VolumeContext& ctx, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  chmod(dir.c_str(), 0777);
  if (ctx.fs_group) {
    if (chown(dir.c_str(), 0, *ctx.fs_group) == 0) chmod(dir.c_str(), 02777);
  }
}

int ModeOf(const Json& j, int fallback, const char* field = "mode") {
  auto it = j.find(field);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

// A volume's `defaultMode` (the kubelet's 0644 when unset).
int DefaultModeOf(const Json& src) { return ModeOf(src, 0644, "defaultMode"); }

// Secret/ConfigMap data → files (all keys, or the listed items).
absl::Status WriteKeyed(const VolumeContext& ctx, const fs::path& dir,
                        const std::map<std::string, std::string>& data, const Json& items,
                        int default_mode) {
  if (items.is_array() && !items.empty()) {
    for (const Json& item : items) {
      auto it = data.find(Str(item, "key"));
      if (it == data.end()) {
        return absl::FailedPreconditionError(absl::StrCat("key ", Str(item, "key"), " not found"));
      }
      if (absl::Status s =
              WriteFile(ctx, dir / Str(item, "path"), it->second, ModeOf(item, default_mode));
          !s.ok())
        return s;
    }
    return absl::OkStatus();
  }
  for (const auto& [k, v] : data) {
    if (absl::Status s = WriteFile(ctx, dir / k, v, default_mode); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, std::string>> Fetch(const VolumeContext& ctx,
                                                         const std::string& ns, bool secret,
                                                         const std::string& name, bool optional) {
  auto obj = ctx.client->Get(secret ? kSecrets : kConfigMaps, ns, name);
  if (!obj.ok()) {
    if (secret == false && name == "kube-root-ca.crt" && absl::IsNotFound(obj.status()))
      return std::map<std::string, std::string>{{"ca.crt", ctx.ca_pem}};
    if (optional && absl::IsNotFound(obj.status())) return std::map<std::string, std::string>{};
    return absl::FailedPreconditionError(
        absl::StrCat(secret ? "secret \"" : "configmap \"", name, "\": ", obj.status().message()));
  }
  return secret ? SecretData(*obj) : ConfigMapData(*obj);
}

absl::StatusOr<std::string> RequestToken(const VolumeContext& ctx, const Json& pod,
                                         const std::string& audience, int64_t seconds) {
  const Json& meta = pod["metadata"];
  std::string sa = Str(pod["spec"], "serviceAccountName");
  if (sa.empty()) sa = "default";
  Json spec = {{"expirationSeconds", std::max<int64_t>(seconds, 600)}};
  // Bound to the pod only when the pod names its account: without the
  // ServiceAccount admission plugin an unset name stays empty, and the API
  // server refuses to bind a token of "default" to such a pod.
  if (!Str(pod["spec"], "serviceAccountName").empty()) {
    spec["boundObjectRef"] = {{"apiVersion", "v1"},
                              {"kind", "Pod"},
                              {"name", Str(meta, "name")},
                              {"uid", Str(meta, "uid")}};
  }
  if (!audience.empty()) spec["audiences"] = Json::array({audience});
  auto r = ctx.client->CreateSubresource(
      kServiceAccounts, Str(meta, "namespace"), sa, "token",
      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}});
  if (!r.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("token for service account ", sa, ": ", r.status().message()));
  }
  return Str((*r)["status"], "token");
}

absl::Status WriteDownward(const VolumeContext& ctx, const fs::path& dir, const Json& pod,
                           const Json& items, int default_mode) {
  for (const Json& item : items) {
    std::string value;
    if (item.contains("fieldRef")) {
      auto v = FieldRef(pod, Str(item["fieldRef"], "fieldPath"));
      if (!v.ok()) return v.status();
      value = *v;
    } else {
      value = "0";
    }
    if (absl::Status s = WriteFile(ctx, dir / Str(item, "path"), value, ModeOf(item, default_mode));
        !s.ok())
      return s;
  }
  return absl::OkStatus();
}

absl::Status PrepareOne(const VolumeContext& ctx, const Json& pod, const Json& vol,
                        std::string& path) {
  const std::string ns = Str(pod["metadata"], "namespace");
  const std::string name = Str(vol, "name");
  const fs::path dir = fs::path(ctx.pod_dir) / "volumes" / name;
  path = dir.string();
  if (vol.contains("emptyDir")) {
    MakeSharedDir(ctx, dir);
  } else if (vol.contains("hostPath")) {
    path = Str(vol["hostPath"], "path");
    const std::string type = Str(vol["hostPath"], "type");
    if (type == "DirectoryOrCreate") MakeSharedDir(ctx, path);
  } else if (vol.contains("persistentVolumeClaim")) {
    const std::string claim = Str(vol["persistentVolumeClaim"], "claimName");
    auto pvc = ctx.client->Get(kClaims, ns, claim);
    if (!pvc.ok())
      return absl::FailedPreconditionError(
          absl::StrCat("claim ", claim, ": ", pvc.status().message()));
    const std::string pv_name = Str((*pvc)["spec"], "volumeName");
    if (pv_name.empty() || Str((*pvc)["status"], "phase") != "Bound")
      return absl::FailedPreconditionError(absl::StrCat("claim ", claim, " is not bound yet"));
    auto pv = ctx.client->Get(kVolumes, "", pv_name);
    if (!pv.ok()) return pv.status();
    path = PersistentVolumePath(*pv);
    if (path.empty())
      return absl::FailedPreconditionError(absl::StrCat("volume ", pv_name, " has no local path"));
    MakeSharedDir(ctx, path);
  } else if (vol.contains("secret") || vol.contains("configMap")) {
    const bool secret = vol.contains("secret");
    const Json& src = secret ? vol["secret"] : vol["configMap"];
    auto data = Fetch(ctx, ns, secret, Str(src, secret ? "secretName" : "name"),
                      src.value("optional", false));
    if (!data.ok()) return data.status();
    MakeSharedDir(ctx, dir);
    return WriteKeyed(ctx, dir, *data, src.value("items", Json::array()), DefaultModeOf(src));
  } else if (vol.contains("downwardAPI")) {
    MakeSharedDir(ctx, dir);
    const Json& src = vol["downwardAPI"];
    return WriteDownward(ctx, dir, pod, src.value("items", Json::array()), DefaultModeOf(src));
  } else if (vol.contains("projected")) {
    MakeSharedDir(ctx, dir);
    const Json& proj = vol["projected"];
    const int mode = DefaultModeOf(proj);
    for (const Json& source : proj.value("sources", Json::array())) {
      absl::Status s;
      if (source.contains("secret") || source.contains("configMap")) {
        const bool secret = source.contains("secret");
        const Json& src = secret ? source["secret"] : source["configMap"];
        auto data = Fetch(ctx, ns, secret, Str(src, "name"), src.value("optional", false));
        if (!data.ok()) return data.status();
        s = WriteKeyed(ctx, dir, *data, src.value("items", Json::array()), mode);
      } else if (source.contains("downwardAPI")) {
        s = WriteDownward(ctx, dir, pod, source["downwardAPI"].value("items", Json::array()), mode);
      } else if (source.contains("serviceAccountToken")) {
        const Json& t = source["serviceAccountToken"];
        auto token =
            RequestToken(ctx, pod, Str(t, "audience"), t.value("expirationSeconds", int64_t{3600}));
        if (!token.ok()) return token.status();
        s = WriteFile(ctx, dir / Str(t, "path"), *token, mode);
      }
      if (!s.ok()) return s;
    }
  } else {
    return absl::UnimplementedError(absl::StrCat("volume ", name, ": unsupported volume type"));
  }
  return absl::OkStatus();
}

bool AutomountToken(const Json& pod) {
  const Json& spec = pod["spec"];
  auto it = spec.find("automountServiceAccountToken");
  return it == spec.end() || !it->is_boolean() || it->get<bool>();
}

}  // namespace

std::string PersistentVolumePath(const Json& pv) {
  const Json& spec = pv.value("spec", Json::object());
  if (spec.contains("hostPath")) return Str(spec["hostPath"], "path");
  if (spec.contains("local")) return Str(spec["local"], "path");
  return "";
}

absl::StatusOr<std::map<std::string, std::string>> PrepareVolumes(const VolumeContext& ctx,
                                                                  const Json& pod) {
  std::map<std::string, std::string> out;
  for (const Json& vol : pod["spec"].value("volumes", Json::array())) {
    std::string path;
    if (absl::Status s = PrepareOne(ctx, pod, vol, path); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("volume \"", Str(vol, "name"), "\": ", s.message()));
    }
    out[Str(vol, "name")] = path;
  }
  if (AutomountToken(pod)) {
    const fs::path dir = fs::path(ctx.pod_dir) / "volumes" / kAutoTokenVolume;
    MakeSharedDir(ctx, dir);
    auto token = RequestToken(ctx, pod, "", 86400);
    if (!token.ok()) return token.status();
    for (const auto& [file, data] :
         std::map<std::string, std::string>{{"token", *token},
                                            {"ca.crt", ctx.ca_pem},
                                            {"namespace", Str(pod["metadata"], "namespace")}}) {
      if (absl::Status s = WriteFile(ctx, dir / file, data, 0644); !s.ok()) return s;
    }
    out[kAutoTokenVolume] = dir.string();
  }
  return out;
}

absl::StatusOr<std::vector<BindMount>> ContainerMounts(
    const Json& pod, const Json& container, const std::map<std::string, std::string>& volumes) {
  std::vector<BindMount> mounts;
  bool has_sa_mount = false;
  for (const Json& m : container.value("volumeMounts", Json::array())) {
    const std::string name = Str(m, "name");
    auto it = volumes.find(name);
    if (it == volumes.end())
      return absl::FailedPreconditionError(absl::StrCat("volumeMount of unknown volume ", name));
    fs::path source = it->second;
    const std::string sub = Str(m, "subPath");
    if (!sub.empty()) source /= sub;
    const std::string target = Str(m, "mountPath");
    if (target == kServiceAccountDir) has_sa_mount = true;
    std::error_code ec;
    if (!sub.empty() && !fs::exists(source)) fs::create_directories(source, ec);
    if (fs::is_directory(source)) {
      fs::create_directories(target, ec);
    } else {
      fs::create_directories(fs::path(target).parent_path(), ec);
      if (!fs::exists(target)) std::ofstream(target).flush();
    }
    mounts.push_back({source.string(), target, m.value("readOnly", false)});
  }
  if (!has_sa_mount) {
    if (auto it = volumes.find(kAutoTokenVolume); it != volumes.end()) {
      std::error_code ec;
      fs::create_directories(kServiceAccountDir, ec);
      mounts.push_back({it->second, kServiceAccountDir, true});
    }
  }
  return mounts;
}

}  // namespace quorum::localnode
