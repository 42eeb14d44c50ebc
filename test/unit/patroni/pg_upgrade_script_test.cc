// The major upgrade Job's script (src/patroni/pg-upgrade.sh), run with /bin/sh
// against stand-in PostgreSQL programs (PG_LIB_DIR) whose pg_upgrade answers
// from a file: what is left of the old and new data directories after each
// way pg_upgrade can end. Real pg_upgrade runs in the e2e upgrades
// (test/e2e/postgres_upgrade_test.cc); this pins the branches that keep the
// old data usable, which a real cluster reaches only by failing mid-link.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "src/patroni/upgrade.h"

namespace quorum::patroni {
namespace {

namespace fs = std::filesystem;

// pg_upgrade: `--check` exits with the first line of $dir/check (0 when
// absent) after printing a refusal; otherwise it renames the old pg_control
// as real pg_upgrade does when it starts linking, then exits with the first
// line of $dir/link.
constexpr char kPgUpgrade[] = R"SH(#!/bin/sh
dir=$(dirname "$0")/../../..
echo "pg_upgrade $*" >>"$dir/calls"
old=""
while [ $# -gt 0 ]; do
  case "$1" in -d) old=$2; shift ;; --check) check=1 ;; esac
  shift
done
if [ -n "${check:-}" ]; then
  code=$(cat "$dir/check" 2>/dev/null || echo 0)
  [ "$code" = 0 ] || echo "Your installation contains one of the reg* data types in user tables."
  exit "$code"
fi
mv "$old/global/pg_control" "$old/global/pg_control.old"
exit "$(cat "$dir/link" 2>/dev/null || echo 0)"
)SH";

class UpgradeScriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/quorum-pg-upgrade-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/upgrade.sh", std::ios::binary) << UpgradeScript();
    const std::string ok = "#!/bin/sh\nexit 0\n";
    for (const char* p : {"postgres", "pg_ctl"}) Program("15", p, ok);
    Program("15", "pg_controldata",
            "#!/bin/sh\necho 'Database cluster state:               shut down'\n"
            "echo 'Data page checksum version:           1'\n");
    for (const char* p : {"pg_ctl", "psql", "vacuumdb"}) Program("17", p, ok);
    Program("17", "initdb",
            "#!/bin/sh\nmkdir -p \"$2\" && echo \"initdb $*\" >>" + dir_ + "/calls\n");
    Program("17", "pg_upgrade", kPgUpgrade);
    fs::create_directories(dir_ + "/pgdata/pg15/global");
    std::ofstream(dir_ + "/pgdata/pg15/PG_VERSION") << "15\n";
    std::ofstream(dir_ + "/pgdata/pg15/global/pg_control") << "control";
    fs::create_directories(dir_ + "/tmp");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Program(const std::string& major, const std::string& name, const std::string& text) {
    const std::string bin = dir_ + "/lib/" + major + "/bin";
    fs::create_directories(bin);
    std::ofstream(bin + "/" + name, std::ios::binary) << text;
    fs::permissions(bin + "/" + name, fs::perms::owner_all);
  }

  int Run() {
    const std::string cmd = "env -i PATH=/usr/bin:/bin PG_LIB_DIR=" + dir_ + "/lib TMPDIR=" + dir_ +
                            "/tmp TERMINATION_LOG=" + dir_ + "/result /bin/sh " + dir_ +
                            "/upgrade.sh 15 17 " + dir_ + "/pgdata/pg15 " + dir_ +
                            "/pgdata/pg17 >" + dir_ + "/stdout 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  std::string Read(const std::string& name) {
    std::ifstream in(dir_ + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool Exists(const std::string& name) { return fs::exists(dir_ + "/" + name); }

  std::string dir_;
};

TEST_F(UpgradeScriptTest, ASuccessLeavesTheNewDataMarkedAndTheOldGone) {
  EXPECT_EQ(Run(), 0) << Read("stdout");
  EXPECT_TRUE(Exists("pgdata/pg17/.quorum-upgraded-from-15"));
  EXPECT_FALSE(Exists("pgdata/pg15"));
  EXPECT_EQ(Read("result"), "upgraded from 15 to 17\n");
  EXPECT_TRUE(absl::StrContains(Read("calls"), "--encoding=UTF8 --data-checksums"))
      << Read("calls");
  // A second run (the Job retried, the operator restarted) changes nothing.
  std::ofstream(dir_ + "/calls", std::ios::trunc).close();
  EXPECT_EQ(Run(), 0) << Read("stdout");
  EXPECT_EQ(Read("calls"), "");
}

TEST_F(UpgradeScriptTest, ARefusedCheckLeavesTheOldDataAndSaysWhy) {
  std::ofstream(dir_ + "/check") << "1\n";
  EXPECT_EQ(Run(), 1) << Read("stdout");
  EXPECT_TRUE(Exists("pgdata/pg15/global/pg_control"));
  EXPECT_FALSE(Exists("pgdata/pg17"));
  EXPECT_TRUE(absl::StrContains(Read("result"), "reg* data types")) << Read("result");
  EXPECT_TRUE(absl::StrContains(Read("result"), "unchanged")) << Read("result");
}

TEST_F(UpgradeScriptTest, AFailureWhileLinkingPutsTheOldPgControlBack) {
  std::ofstream(dir_ + "/link") << "1\n";
  EXPECT_EQ(Run(), 1) << Read("stdout");
  EXPECT_TRUE(Exists("pgdata/pg15/global/pg_control"));
  EXPECT_FALSE(Exists("pgdata/pg15/global/pg_control.old"));
  EXPECT_FALSE(Exists("pgdata/pg17"));
  EXPECT_TRUE(absl::StrContains(Read("result"), "as it was")) << Read("result");
}

TEST_F(UpgradeScriptTest, AnAttemptCutShortWhileLinkingIsMendedAndRunAgain) {
  fs::rename(dir_ + "/pgdata/pg15/global/pg_control", dir_ + "/pgdata/pg15/global/pg_control.old");
  fs::create_directories(dir_ + "/pgdata/pg17/base");  // its half-made new cluster
  EXPECT_EQ(Run(), 0) << Read("stdout");
  EXPECT_TRUE(Exists("pgdata/pg17/.quorum-upgraded-from-15"));
  EXPECT_FALSE(Exists("pgdata/pg17/base")) << "the half-made cluster was not started over";
}

TEST_F(UpgradeScriptTest, AnImageWithoutTheOldMajorFailsBeforeTouchingAnything) {
  fs::remove(dir_ + "/lib/15/bin/postgres");
  EXPECT_EQ(Run(), 1) << Read("stdout");
  EXPECT_TRUE(absl::StrContains(Read("result"), "no PostgreSQL 15 server")) << Read("result");
  EXPECT_TRUE(Exists("pgdata/pg15/global/pg_control"));
  EXPECT_EQ(Read("calls"), "");
}

}  // namespace
}  // namespace quorum::patroni
