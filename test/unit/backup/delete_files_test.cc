// delete-snapshots' file removal: relative files go (absent ones are fine);
// an unsafe path is refused before anything is deleted.
#include "src/backup/delete_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace quorum::backup {
namespace {

namespace fs = std::filesystem;

class DeleteFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("quorum-delete-files-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "etcd");
    for (const char* f : {"etcd/a.db", "etcd/b.db", "keep.db"}) std::ofstream(dir_ / f) << "x";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DeleteFilesTest, RemovesTheNamedFilesAndToleratesAbsentOnes) {
  ASSERT_TRUE(DeleteSnapshotFiles(dir_, {"etcd/a.db", "etcd/gone.db"}).ok());
  EXPECT_FALSE(fs::exists(dir_ / "etcd/a.db"));
  EXPECT_TRUE(fs::exists(dir_ / "etcd/b.db"));
  EXPECT_TRUE(DeleteSnapshotFiles(dir_, {"etcd/a.db"}).ok());  // twice is fine
}

TEST_F(DeleteFilesTest, RefusesUnsafePathsBeforeDeletingAnything) {
  for (const char* bad :
       {"/etc/passwd", "../keep.db", "etcd/../keep.db", "./keep.db", "", "etcd//b.db"}) {
    absl::Status s = DeleteSnapshotFiles(dir_ / "etcd", {"b.db", bad});
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
  }
  EXPECT_TRUE(fs::exists(dir_ / "etcd/b.db"));
  EXPECT_TRUE(fs::exists(dir_ / "keep.db"));
}

}  // namespace
}  // namespace quorum::backup
