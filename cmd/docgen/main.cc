// docgen: writes docs/reference/<resource>.md from the CRDs in deploy/crds, or
// with --check reports (exit 1) the pages that are stale, missing or left
// over. hack/update-docs.sh runs it; a CTest test runs --check.
//
//   docgen --crds deploy/crds --out docs/reference [--check]
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cmd/crdgen/yaml_to_json.h"
#include "cmd/docgen/reference.h"

namespace fs = std::filesystem;

namespace {

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Usage() {
  std::fprintf(stderr, "usage: docgen --crds DIR --out DIR [--check]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string crds, out;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--crds") && i + 1 < argc) {
      crds = argv[++i];
    } else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!std::strcmp(argv[i], "--check")) {
      check = true;
    } else {
      return Usage();
    }
  }
  if (crds.empty() || out.empty()) return Usage();

  std::map<std::string, std::string> pages;  // file name -> content
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(crds, ec)) {
    if (entry.path().extension() != ".yaml") continue;
    nlohmann::json crd;
    try {
      crd = quorum::crdgen::YamlNodeToJson(YAML::LoadFile(entry.path().string()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "docgen: %s: %s\n", entry.path().c_str(), e.what());
      return 1;
    }
    if (crd.value("kind", "") != "CustomResourceDefinition") continue;
    pages[quorum::docgen::ReferenceFileName(crd)] =
        quorum::docgen::RenderReference(crd, "deploy/crds/" + entry.path().filename().string());
  }
  if (ec) {
    std::fprintf(stderr, "docgen: cannot read %s: %s\n", crds.c_str(), ec.message().c_str());
    return 1;
  }
  if (pages.empty()) {
    std::fprintf(stderr, "docgen: no CRDs in %s\n", crds.c_str());
    return 1;
  }

  if (check) {
    int stale = 0;
    for (const auto& [name, content] : pages) {
      if (ReadFile(fs::path(out) / name) != content) {
        std::fprintf(stderr, "docgen: %s/%s is stale or missing\n", out.c_str(), name.c_str());
        ++stale;
      }
    }
    for (const auto& entry : fs::directory_iterator(out, ec)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".md" && name != "README.md" && !pages.count(name)) {
        std::fprintf(stderr, "docgen: %s/%s has no CRD\n", out.c_str(), name.c_str());
        ++stale;
      }
    }
    if (stale > 0) std::fprintf(stderr, "docgen: run hack/update-docs.sh\n");
    return stale > 0 ? 1 : 0;
  }
  fs::create_directories(out, ec);
  for (const auto& [name, content] : pages) {
    std::ofstream f(fs::path(out) / name);
    f << content;
    if (!f) {
      std::fprintf(stderr, "docgen: cannot write %s/%s\n", out.c_str(), name.c_str());
      return 1;
    }
  }
  return 0;
}
