// The node stand-in writes Secret and ConfigMap volumes with the file modes the
// pod asks for, as the kubelet does: the volume's defaultMode (0644 when
// unset) and an item's own mode over it. Issue 18.1: the PostgreSQL pods'
// role callback (ConfigMap defaultMode 0555) was written 0644, so Patroni
// could not execute it. Real API server; the volumes are read from it.
#include "tools/localnode/volumes.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "test/integration/testenv.h"

namespace quorum::localnode {
namespace {

const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

int ModeOfFile(const std::filesystem::path& p) {
  struct stat st {};
  if (stat(p.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

class VolumesTest : public testenv::IntegrationTest {};

TEST_F(VolumesTest, SecretAndConfigMapFilesGetTheModesThePodAsksFor) {
  ASSERT_TRUE(client()
                  .Create(kConfigMaps, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", "scripts"}}},
                           {"data", {{"run.sh", "#!/bin/sh\nexit 0\n"}, {"conf", "a=1\n"}}}})
                  .ok());
  ASSERT_TRUE(client()
                  .Create(kSecrets, ns(),
                          {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"metadata", {{"name", "creds"}}},
                           {"stringData", {{"tls.key", "k"}, {"ca.crt", "c"}}}})
                  .ok());
  const Json pod = {
      {"metadata", {{"name", "p"}, {"namespace", ns()}, {"uid", "u-1"}}},
      {"spec",
       {{"automountServiceAccountToken", false},
        {"volumes",
         Json::array(
             {{{"name", "exec"}, {"configMap", {{"name", "scripts"}, {"defaultMode", 0555}}}},
              {{"name", "plain"}, {"configMap", {{"name", "scripts"}}}},
              {{"name", "items"},
               {"configMap",
                {{"name", "scripts"},
                 {"defaultMode", 0444},
                 {"items", Json::array({{{"key", "run.sh"}, {"path", "bin/run"}, {"mode", 0500}},
                                        {{"key", "conf"}, {"path", "conf"}}})}}}},
              {{"name", "tls"}, {"secret", {{"secretName", "creds"}, {"defaultMode", 0440}}}},
              {{"name", "tls-items"},
               {"secret",
                {{"secretName", "creds"},
                 {"items",
                  Json::array({{{"key", "tls.key"}, {"path", "key"}, {"mode", 0400}}})}}}}})}}}};
  char tmpl[] = "/tmp/quorum-volumes-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;
  auto volumes = PrepareVolumes({.client = &client(), .pod_dir = dir.string()}, pod);
  ASSERT_TRUE(volumes.ok()) << volumes.status();

  const std::filesystem::path v = dir / "volumes";
  EXPECT_EQ(ModeOfFile(v / "exec" / "run.sh"), 0555) << "configMap defaultMode";
  EXPECT_EQ(ModeOfFile(v / "exec" / "conf"), 0555) << "configMap defaultMode";
  EXPECT_EQ(ModeOfFile(v / "plain" / "run.sh"), 0644) << "no defaultMode: 0644";
  EXPECT_EQ(ModeOfFile(v / "items" / "bin" / "run"), 0500) << "an item's mode";
  EXPECT_EQ(ModeOfFile(v / "items" / "conf"), 0444) << "an item without mode: defaultMode";
  EXPECT_EQ(ModeOfFile(v / "tls" / "tls.key"), 0440) << "secret defaultMode";
  EXPECT_EQ(ModeOfFile(v / "tls-items" / "key"), 0400) << "a secret item's mode";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace quorum::localnode
