// The report's archive as the system's tar reads it: extracted, a long name
// (ustar prefix) included. Starts a process, so labelled integration.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "src/kubectl/tar_writer.h"

namespace quorum::kubectl {
namespace {

TEST(TarWriterTest, TheSystemTarListsAndExtractsTheArchive) {
  if (std::system("command -v tar >/dev/null 2>&1") != 0) GTEST_SKIP() << "no tar";
  const std::string long_name = "r/" + std::string(110, 'n') + "/file.log";
  absl::StatusOr<std::string> tar =
      BuildTar({{.name = "r/a.txt", .data = "hello\n"}, {.name = long_name, .data = "long\n"}},
               absl::FromUnixSeconds(1700000000));
  ASSERT_TRUE(tar.ok());
  absl::StatusOr<std::string> gz = Gzip(*tar);
  ASSERT_TRUE(gz.ok());
  const std::string dir = ::testing::TempDir() + "/tar_writer_test";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  std::ofstream(dir + "/t.tar.gz", std::ios::binary) << *gz;
  ASSERT_EQ(std::system(("tar -xzf " + dir + "/t.tar.gz -C " + dir).c_str()), 0);
  std::ifstream a(dir + "/r/a.txt"), l(dir + "/" + long_name);
  std::string got_a((std::istreambuf_iterator<char>(a)), {});
  std::string got_l((std::istreambuf_iterator<char>(l)), {});
  EXPECT_EQ(got_a, "hello\n");
  EXPECT_EQ(got_l, "long\n");
}

}  // namespace
}  // namespace quorum::kubectl
