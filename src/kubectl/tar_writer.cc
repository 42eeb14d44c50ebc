#include "src/kubectl/tar_writer.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace quorum::kubectl {
namespace {

constexpr size_t kBlock = 512;
constexpr int64_t kMaxOctal11 = (int64_t{1} << 33) - 1;  // 11 octal digits

// `value` in octal, zero-padded to width-1 digits and a NUL (the callers
// keep it below 8^(width-1)).
void PutOctal(char* field, size_t width, uint64_t value) {
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0; value >>= 3) field[i] = static_cast<char>('0' + (value & 7));
}

absl::Status CheckName(const std::string& name) {
  if (name.empty() || name.front() == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("tar entry \"", name, "\": want a relative path"));
  }
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat("tar entry \"", name, "\": holds .."));
    }
  }
  return absl::OkStatus();
}

// Splits `name` into ustar's prefix (<= 155) and name (<= 100) at a '/'.
absl::Status SplitName(const std::string& name, std::string& prefix, std::string& rest) {
  if (name.size() <= 100) {
    prefix.clear();
    rest = name;
    return absl::OkStatus();
  }
  for (size_t slash = name.rfind('/'); slash != std::string::npos && slash > 0;
       slash = name.rfind('/', slash - 1)) {
    if (slash <= 155 && name.size() - slash - 1 <= 100 && slash + 1 < name.size()) {
      prefix = name.substr(0, slash);
      rest = name.substr(slash + 1);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("tar entry \"", name, "\": too long for ustar"));
}

std::string Header(const std::string& prefix, const std::string& name, size_t size, int64_t mtime) {
  std::string h(kBlock, '\0');
  char* b = h.data();
  std::memcpy(b, name.data(), name.size());  // name[100]
  PutOctal(b + 100, 8, 0644);                // mode
  PutOctal(b + 108, 8, 0);                   // uid
  PutOctal(b + 116, 8, 0);                   // gid
  PutOctal(b + 124, 12, size);               // size
  PutOctal(b + 136, 12, static_cast<uint64_t>(std::clamp<int64_t>(mtime, 0, kMaxOctal11)));
  std::memset(b + 148, ' ', 8);                        // checksum counted as spaces
  b[156] = '0';                                        // typeflag: regular file
  std::memcpy(b + 257, "ustar", 6);                    // magic with its NUL
  std::memcpy(b + 263, "00", 2);                       // version
  std::memcpy(b + 265, "root", 4);                     // uname
  std::memcpy(b + 297, "root", 4);                     // gname
  std::memcpy(b + 345, prefix.data(), prefix.size());  // prefix[155]
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  PutOctal(b + 148, 7, sum);  // six digits and a NUL, then the space left
  b[155] = ' ';
  return h;
}

}  // namespace

absl::StatusOr<std::string> BuildTar(const std::vector<TarEntry>& entries, absl::Time mtime) {
  std::string out;
  const int64_t seconds = absl::ToUnixSeconds(mtime);
  for (const TarEntry& e : entries) {
    if (absl::Status s = CheckName(e.name); !s.ok()) return s;
    std::string prefix, rest;
    if (absl::Status s = SplitName(e.name, prefix, rest); !s.ok()) return s;
    if (e.data.size() > static_cast<size_t>(kMaxOctal11)) {
      return absl::InvalidArgumentError(absl::StrCat("tar entry \"", e.name, "\": over 8 GiB"));
    }
    out += Header(prefix, rest, e.data.size(), seconds);
    out += e.data;
    out.append((kBlock - e.data.size() % kBlock) % kBlock, '\0');
  }
  out.append(2 * kBlock, '\0');
  return out;
}

absl::StatusOr<std::string> Gzip(const std::string& data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return absl::InternalError("zlib: deflate did not finish");
  return out;
}

}  // namespace quorum::kubectl
