// Helpers shared by the deploy/ tests: multi-document YAML files as JSON
// objects, and running a command line. Header-only (the tests in this folder
// link only quorum_kube, which brings yaml-cpp).
#ifndef QUORUM_TEST_UNIT_DEPLOY_KUBE_MANIFEST_FILES_H_
#define QUORUM_TEST_UNIT_DEPLOY_KUBE_MANIFEST_FILES_H_

#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cmd/crdgen/yaml_to_json.h"
#include "test/testmain/paths.h"

namespace quorum::deploytest {

using Json = nlohmann::json;

inline std::string Repo(const std::string& relative) {
  return std::string(QUORUM_SOURCE_DIR) + "/" + relative;
}

// Every non-empty document of a YAML stream, as JSON.
inline std::vector<Json> ParseDocuments(const std::string& yaml) {
  std::vector<Json> out;
  for (const YAML::Node& doc : YAML::LoadAll(yaml)) {
    Json j = crdgen::YamlNodeToJson(doc);
    if (j.is_object() && !j.empty()) out.push_back(std::move(j));
  }
  return out;
}

inline std::vector<Json> LoadDocuments(const std::string& path) {
  std::vector<Json> out;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(path)) {
    Json j = crdgen::YamlNodeToJson(doc);
    if (j.is_object() && !j.empty()) out.push_back(std::move(j));
  }
  return out;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout (stderr too when the command line redirects it)
};

// Runs `command` with /bin/sh and collects its stdout.
inline CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// "Kind namespace/name", the identity of an object in a bundle.
inline std::string KeyOf(const Json& o) {
  const Json meta = o.value("metadata", Json::object());
  return o.value("kind", "") + " " + meta.value("namespace", "") + "/" + meta.value("name", "");
}

// The object of `kind` named `name` in `docs`, or null.
inline Json Find(const std::vector<Json>& docs, const std::string& kind, const std::string& name) {
  for (const Json& d : docs) {
    if (d.value("kind", "") == kind && d["metadata"].value("name", "") == name) return d;
  }
  return nullptr;
}

}  // namespace quorum::deploytest

#endif  // QUORUM_TEST_UNIT_DEPLOY_KUBE_MANIFEST_FILES_H_
