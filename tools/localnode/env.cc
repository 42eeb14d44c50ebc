#include "tools/localnode/env.h"

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"

namespace quorum::localnode {
namespace {

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// "labels['a.b/c']" → "a.b/c"
bool Subscript(const std::string& path, const std::string& prefix, std::string& key) {
  if (!absl::StartsWith(path, prefix + "['") || !absl::EndsWith(path, "']")) return false;
  key = path.substr(prefix.size() + 2, path.size() - prefix.size() - 4);
  return true;
}

}  // namespace

std::map<std::string, std::string> SecretData(const Json& secret) {
  std::map<std::string, std::string> out;
  if (secret.contains("data") && secret["data"].is_object()) {
    for (auto it = secret["data"].begin(); it != secret["data"].end(); ++it) {
      std::string decoded;
      if (it->is_string() && absl::Base64Unescape(Absl(it->get<std::string>()), &decoded))
        out[it.key()] = decoded;
    }
  }
  if (secret.contains("stringData") && secret["stringData"].is_object()) {
    for (auto it = secret["stringData"].begin(); it != secret["stringData"].end(); ++it)
      if (it->is_string()) out[it.key()] = it->get<std::string>();
  }
  return out;
}

std::map<std::string, std::string> ConfigMapData(const Json& cm) {
  std::map<std::string, std::string> out;
  if (cm.contains("binaryData") && cm["binaryData"].is_object()) {
    for (auto it = cm["binaryData"].begin(); it != cm["binaryData"].end(); ++it) {
      std::string decoded;
      if (it->is_string() && absl::Base64Unescape(Absl(it->get<std::string>()), &decoded))
        out[it.key()] = decoded;
    }
  }
  if (cm.contains("data") && cm["data"].is_object()) {
    for (auto it = cm["data"].begin(); it != cm["data"].end(); ++it)
      if (it->is_string()) out[it.key()] = it->get<std::string>();
  }
  return out;
}

absl::StatusOr<std::string> FieldRef(const Json& pod, const std::string& path) {
  const Json& meta = pod.value("metadata", Json::object());
  const Json& spec = pod.value("spec", Json::object());
  const Json& status = pod.value("status", Json::object());
  std::string key;
  if (path == "metadata.name") return Str(meta, "name");
  if (path == "metadata.namespace") return Str(meta, "namespace");
  if (path == "metadata.uid") return Str(meta, "uid");
  if (path == "spec.nodeName") return Str(spec, "nodeName");
  if (path == "spec.serviceAccountName") {
    std::string sa = Str(spec, "serviceAccountName");
    return sa.empty() ? "default" : sa;
  }
  if (path == "status.podIP" || path == "status.podIPs") return Str(status, "podIP");
  if (path == "status.hostIP" || path == "status.hostIPs") return Str(status, "hostIP");
  if (Subscript(path, "metadata.labels", key))
    return Str(meta.value("labels", Json::object()), key.c_str());
  if (Subscript(path, "metadata.annotations", key))
    return Str(meta.value("annotations", Json::object()), key.c_str());
  if (path == "metadata.labels" || path == "metadata.annotations") {
    const Json& m = meta.value(path.substr(9), Json::object());
    std::string out;
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it->is_string()) absl::StrAppend(&out, it.key(), "=\"", it->get<std::string>(), "\"\n");
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat("unsupported fieldRef ", path));
}

std::string Expand(const std::string& in,
                   const std::vector<std::pair<std::string, std::string>>& vars) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$' || i + 1 >= in.size()) {
      out += in[i];
      continue;
    }
    if (in[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (in[i + 1] == '(') {
      size_t close = in.find(')', i + 2);
      if (close != std::string::npos) {
        const std::string name = in.substr(i + 2, close - i - 2);
        const std::pair<std::string, std::string>* found = nullptr;
        for (const auto& kv : vars)
          if (kv.first == name) found = &kv;  // the last definition wins
        if (found != nullptr) {
          out += found->second;
          i = close;
          continue;
        }
      }
    }
    out += in[i];
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ContainerEnv(
    const Json& pod, const Json& container,
    const std::vector<std::pair<std::string, std::string>>& base, const ObjectLookup& lookup) {
  std::vector<std::pair<std::string, std::string>> env = base;
  auto set = [&env](const std::string& k, std::string v) {
    for (auto& kv : env) {
      if (kv.first == k) {
        kv.second = std::move(v);
        return;
      }
    }
    env.emplace_back(k, std::move(v));
  };
  for (const Json& from : container.value("envFrom", Json::array())) {
    const std::string prefix = Str(from, "prefix");
    const bool is_cm = from.contains("configMapRef");
    const Json& ref = is_cm ? from["configMapRef"] : from.value("secretRef", Json::object());
    const std::string name = Str(ref, "name");
    if (name.empty()) continue;
    auto obj = lookup(is_cm ? "configmaps" : "secrets", name);
    if (!obj.ok()) {
      if (ref.value("optional", false)) continue;
      return absl::FailedPreconditionError(
          absl::StrCat(is_cm ? "configmap " : "secret ", "\"", name, "\" not found"));
    }
    for (const auto& [k, v] : is_cm ? ConfigMapData(*obj) : SecretData(*obj)) set(prefix + k, v);
  }
  for (const Json& e : container.value("env", Json::array())) {
    const std::string name = Str(e, "name");
    if (e.contains("value")) {
      set(name, Expand(Str(e, "value"), env));
      continue;
    }
    const Json& from = e.value("valueFrom", Json::object());
    if (from.contains("fieldRef")) {
      auto v = FieldRef(pod, Str(from["fieldRef"], "fieldPath"));
      if (!v.ok()) return v.status();
      set(name, *v);
    } else if (from.contains("resourceFieldRef")) {
      set(name, "0");  // no resource accounting here
    } else if (from.contains("secretKeyRef") || from.contains("configMapKeyRef")) {
      const bool is_cm = from.contains("configMapKeyRef");
      const Json& ref = is_cm ? from["configMapKeyRef"] : from["secretKeyRef"];
      const std::string obj_name = Str(ref, "name"), key = Str(ref, "key");
      auto obj = lookup(is_cm ? "configmaps" : "secrets", obj_name);
      std::map<std::string, std::string> data;
      if (obj.ok()) data = is_cm ? ConfigMapData(*obj) : SecretData(*obj);
      auto it = data.find(key);
      if (it == data.end()) {
        if (ref.value("optional", false)) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "couldn't find key ", key, " in ", is_cm ? "ConfigMap " : "Secret ", obj_name));
      }
      set(name, it->second);
    } else {
      set(name, "");
    }
  }
  return env;
}

}  // namespace quorum::localnode
