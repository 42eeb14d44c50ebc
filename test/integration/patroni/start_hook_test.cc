// Patroni's start-up hook (src/patroni/start_hook.h) with the real Patroni of
// hack/patroni-env.sh: the embedded bytes, written where a pod mounts them and
// found through PYTHONPATH as the pod's environment sets it (PodEnv), shorten
// the name cache of Patroni's etcd module from ten minutes to seconds — the
// cache that kept a leader calling replaced members at their old pod IPs.
#include "src/patroni/start_hook.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "src/patroni/config.h"
#include "test/integration/patroni/patroni_harness.h"

namespace quorum::patroni {
namespace {

// Prints "<cache_time> <cache_fail_time>" of a new DnsCachingResolver, as
// Patroni's etcd DCS creates it, in Patroni's own Python.
std::string CacheTimes(const testing::Binaries& bins, const std::string& env) {
  const std::string code =
      "import patroni.dcs.etcd3, patroni.dcs.etcd as e; r = e.DnsCachingResolver(); "
      "print(r._cache_time, r._cache_fail_time)";
  int rc = 0;
  const std::string out = testing::RunCapture(
      absl::StrCat("env -i ", env, " ", bins.patroni_bin_dir, "/python3 -c '", code, "' 2>&1"),
      &rc);
  EXPECT_EQ(rc, 0) << out;
  return testing::Trim(out);
}

class StartHookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::Binaries> bins = testing::FindBinaries();
    ASSERT_TRUE(bins.ok()) << bins.status();
    bins_ = *bins;
    dir_ = std::filesystem::temp_directory_path() / absl::StrCat("quorum-start-hook-", ::getpid());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / std::string(kStartHookFileName)) << StartHookScript();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // PYTHONPATH as PodEnv() sets it for a pod whose hook is mounted in dir_.
  std::string PodPythonPath() {
    ConfigInput in;
    in.python_path = dir_.string();
    for (const EnvVar& v : PodEnv(in)) {
      if (v.name == "PYTHONPATH") return "PYTHONPATH=" + v.value;
    }
    ADD_FAILURE() << "PodEnv sets no PYTHONPATH";
    return "";
  }

  testing::Binaries bins_;
  std::filesystem::path dir_;
};

TEST_F(StartHookTest, WithoutTheHookPatroniCachesNamesForTenMinutes) {
  // What the hook is for: if Patroni changes this, the hook may be moot.
  EXPECT_EQ(CacheTimes(bins_, ""), "600.0 30.0");
}

TEST_F(StartHookTest, TheHookShortensTheCacheToSeconds) {
  EXPECT_EQ(CacheTimes(bins_, PodPythonPath()), "5.0 5.0");
  EXPECT_EQ(CacheTimes(bins_, PodPythonPath() + " QUORUM_PATRONI_DNS_CACHE_SECONDS=1"), "1.0 1.0");
  // A bad value falls back to the default instead of keeping Patroni down.
  EXPECT_EQ(CacheTimes(bins_, PodPythonPath() + " QUORUM_PATRONI_DNS_CACHE_SECONDS=x"), "5.0 5.0");
}

TEST_F(StartHookTest, PodEnvSetsNoPythonPathWithoutAHook) {
  ConfigInput in;
  for (const EnvVar& v : PodEnv(in)) EXPECT_NE(v.name, "PYTHONPATH");
}

}  // namespace
}  // namespace quorum::patroni
