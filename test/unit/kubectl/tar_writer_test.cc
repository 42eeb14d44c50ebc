// The report's archive writer: headers any tar reads (checked by reading
// them back field by field; tar_extract_test has the system's tar read one), long
// names split over prefix and name, bad names refused, gzip that zlib
// inflates back.
#include "src/kubectl/tar_writer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <string>

namespace quorum::kubectl {
namespace {

std::string Field(const std::string& block, size_t offset, size_t width) {
  std::string f = block.substr(offset, width);
  return f.substr(0, f.find('\0'));
}

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

TEST(TarWriterTest, HeadersHoldNameSizeModeAndAValidChecksum) {
  absl::StatusOr<std::string> tar =
      BuildTar({{.name = "r/a.txt", .data = "hello\n"}, {.name = "r/empty", .data = ""}},
               absl::FromUnixSeconds(1700000000));
  ASSERT_TRUE(tar.ok()) << tar.status();
  // header + one data block, header, two zero blocks
  ASSERT_EQ(tar->size(), 512u * 5);
  const std::string h = tar->substr(0, 512);
  EXPECT_EQ(Field(h, 0, 100), "r/a.txt");
  EXPECT_EQ(Field(h, 100, 8), "0000644");
  EXPECT_EQ(std::strtoull(Field(h, 124, 12).c_str(), nullptr, 8), 6u);
  EXPECT_EQ(std::strtoull(Field(h, 136, 12).c_str(), nullptr, 8), 1700000000u);
  EXPECT_EQ(h[156], '0');
  EXPECT_EQ(Field(h, 257, 6), "ustar");
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
  EXPECT_EQ(std::strtoul(Field(h, 148, 8).c_str(), nullptr, 8), sum);
  EXPECT_EQ(tar->substr(512, 6), "hello\n");
  EXPECT_EQ(Field(tar->substr(1024, 512), 0, 100), "r/empty");
  EXPECT_EQ(tar->substr(1536), std::string(1024, '\0'));
}

TEST(TarWriterTest, LongNamesSplitAtASlashIntoPrefixAndName) {
  const std::string dir(120, 'd');
  const std::string file(90, 'f');
  absl::StatusOr<std::string> tar = BuildTar({{.name = dir + "/" + file, .data = "x"}}, {});
  ASSERT_TRUE(tar.ok()) << tar.status();
  EXPECT_EQ(Field(*tar, 0, 100), file);
  EXPECT_EQ(Field(*tar, 345, 155), dir);
}

TEST(TarWriterTest, RefusesNamesThatAreUnsafeOrTooLong) {
  struct Case {
    std::string name;
  };
  for (const Case& c : std::vector<Case>{{""},
                                         {"/etc/passwd"},
                                         {"r/../x"},
                                         {std::string(101, 'a')},
                                         {std::string(160, 'a') + "/" + std::string(50, 'b')}}) {
    absl::StatusOr<std::string> tar = BuildTar({{.name = c.name, .data = ""}}, {});
    EXPECT_TRUE(absl::IsInvalidArgument(tar.status())) << c.name;
  }
}

TEST(TarWriterTest, GzipInflatesBackToTheInput) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += "line " + std::to_string(i) + "\n";
  absl::StatusOr<std::string> gz = Gzip(data);
  ASSERT_TRUE(gz.ok()) << gz.status();
  EXPECT_LT(gz->size(), data.size());
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
  EXPECT_EQ(Gunzip(*gz), data);
}

}  // namespace
}  // namespace quorum::kubectl
