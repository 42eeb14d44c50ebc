// The backup Job's script (src/patroni/pgbackrest-backup.sh), run with /bin/sh
// against a stand-in `pgbackrest` on PATH that answers each `backup` call from
// a list: which refusals it tries again after, how often, and what reaches
// the termination message. pgBackRest itself runs in the e2e backups
// (test/e2e/pgbackrest_test.cc); this file pins the script's branches, which
// a real cluster reaches only by timing (a backup moments after a promotion).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "src/patroni/pgbackrest.h"

namespace quorum::patroni {
namespace {

// Answers to `backup`, one line per call: "ok", or an error line that it
// prints and exits 58 with (pgBackRest exits with its error's code).
constexpr char kStub[] = R"(#!/bin/sh
dir=$(dirname "$0")
echo "$*" >>"$dir/calls"
case " $* " in
  *" backup "*)
    n=$(grep -c ' backup' "$dir/calls")
    answer=$(sed -n "${n}p" "$dir/answers")
    if [ "$answer" = ok ]; then
      echo "2026-12-06 10:00:00.000 P00   INFO: new backup label = 20261206-100000F"
      exit 0
    fi
    echo "2026-12-06 10:00:00.000 P00  ERROR: $answer"
    echo "2026-12-06 10:00:00.001 P00   INFO: backup command end: aborted with exception"
    exit 58 ;;
  *" --set="*" info "*) echo '[{"name":"db"}]' ;;
  *" info "*) echo '[{"archive":[{"min":"000000010000000000000001","max":"000000020000000000000004"}],"backup":[{"timestamp":{"start":1,"stop":2}}]}]' ;;
esac
)";

class BackupScriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/quorum-backup-script-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/backup.sh", std::ios::binary) << BackupScript();
    Executable("pgbackrest", kStub);
    Executable("sleep", "#!/bin/sh\n");  // the retry's pause, skipped
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Executable(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }

  // Runs the script with `answers` to the backups; returns its exit code.
  int Run(const std::vector<std::string>& answers) {
    std::ofstream out(dir_ + "/answers");
    for (const std::string& a : answers) out << a << "\n";
    out.close();
    const std::string cmd = "env -i PATH=" + dir_ + ":/usr/bin:/bin TMPDIR=" + dir_ +
                            " TERMINATION_LOG=" + dir_ + "/result /bin/sh " + dir_ +
                            "/backup.sh full 2 >" + dir_ + "/stdout 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  std::string Read(const std::string& name) {
    std::ifstream in(dir_ + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  int Backups() {
    int n = 0;
    for (absl::string_view line : absl::StrSplit(Read("calls"), '\n')) {
      if (absl::StrContains(line, " backup")) ++n;
    }
    return n;
  }

  std::string dir_;
};

constexpr char kTimeline[] = "[058]: WAL timeline 2 does not match pg_control timeline 1";

TEST_F(BackupScriptTest, ABackupThatSucceedsReportsItsSetAndTheRepository) {
  EXPECT_EQ(Run({"ok"}), 0) << Read("stdout");
  EXPECT_EQ(Backups(), 1);
  const std::string result = Read("result");
  EXPECT_TRUE(absl::StartsWith(result, R"({"info":[{"name":"db"}],"repository":{)")) << result;
  EXPECT_TRUE(absl::StrContains(result, R"("walMax":"000000020000000000000004")")) << result;
  EXPECT_TRUE(absl::StrContains(Read("calls"), "--type=full --repo=2 backup")) << Read("calls");
}

TEST_F(BackupScriptTest, APgControlOlderThanThePromotionIsTriedOnceMore) {
  EXPECT_EQ(Run({kTimeline, "ok"}), 0) << Read("stdout");
  EXPECT_EQ(Backups(), 2);
  EXPECT_TRUE(absl::StartsWith(Read("result"), R"({"info":)")) << Read("result");
  EXPECT_TRUE(absl::StrContains(Read("stdout"), "predates its promotion")) << Read("stdout");
}

TEST_F(BackupScriptTest, TheSecondRefusalFailsTheBackupWithPgBackRestsError) {
  EXPECT_EQ(Run({kTimeline, kTimeline, "ok"}), 1) << Read("stdout");
  EXPECT_EQ(Backups(), 2);
  EXPECT_TRUE(absl::StrContains(Read("result"), kTimeline)) << Read("result");
}

TEST_F(BackupScriptTest, OtherRefusalsAreNotTriedAgain) {
  const std::string promoted = "[058]: standby is no longer in recovery";
  EXPECT_EQ(Run({promoted, "ok"}), 1) << Read("stdout");
  EXPECT_EQ(Backups(), 1);
  EXPECT_TRUE(absl::StrContains(Read("result"), promoted)) << Read("result");
}

}  // namespace
}  // namespace quorum::patroni
