#include "src/runtime/packed_codec.h"

#include <zstd.h>

#include "absl/synchronization/mutex.h"

namespace quorum::runtime {
namespace {

// The first byte of every encoded object.
constexpr char kPlain = 'p';
constexpr char kZstd = 'z';
// zstd's fastest regular level: the objects are small and read often.
constexpr int kLevel = 1;

// One compression and one decompression context for the whole process.
class Contexts {
 public:
  static Contexts& Get() {
    static Contexts* const contexts = new Contexts();  // never destroyed: used until exit
    return *contexts;
  }
  Contexts() : cctx_(ZSTD_createCCtx()), dctx_(ZSTD_createDCtx()) {}

  // Appends `plain` compressed with `dictionary` to `out`; false when zstd fails.
  bool Compress(std::string_view plain, std::string_view dictionary, std::string& out) {
    const size_t start = out.size();
    out.resize(start + ZSTD_compressBound(plain.size()));
    absl::MutexLock lock(&mu_);
    const size_t n =
        ZSTD_compress_usingDict(cctx_, out.data() + start, out.size() - start, plain.data(),
                                plain.size(), dictionary.data(), dictionary.size(), kLevel);
    if (ZSTD_isError(n)) return false;
    out.resize(start + n);
    return true;
  }

  bool Decompress(std::string_view frame, std::string_view dictionary, std::string& plain) {
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return false;
    plain.resize(size);
    absl::MutexLock lock(&mu_);
    const size_t n = ZSTD_decompress_usingDict(dctx_, plain.data(), plain.size(), frame.data(),
                                               frame.size(), dictionary.data(), dictionary.size());
    return !ZSTD_isError(n) && n == size;
  }

 private:
  absl::Mutex mu_;
  ZSTD_CCtx* const cctx_ ABSL_GUARDED_BY(mu_);
  ZSTD_DCtx* const dctx_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::string PackedCodec::Encode(std::string_view plain) {
  if (dictionary_.empty() && plain.size() >= kMinDictionary && plain.size() <= kMaxDictionary) {
    dictionary_.assign(plain);
  }
  std::string out;
  if (!dictionary_.empty()) {
    out.push_back(kZstd);
    if (Contexts::Get().Compress(plain, dictionary_, out) && out.size() < plain.size() + 1) {
      out.shrink_to_fit();
      return out;
    }
    out.clear();
  }
  out.reserve(plain.size() + 1);
  out.push_back(kPlain);
  out.append(plain);
  return out;
}

std::optional<std::string_view> PackedCodec::Decode(std::string_view encoded,
                                                    std::string& scratch) const {
  if (encoded.empty()) return std::nullopt;
  const std::string_view body = encoded.substr(1);
  if (encoded[0] == kPlain) return body;
  if (encoded[0] == kZstd && !dictionary_.empty() &&
      Contexts::Get().Decompress(body, dictionary_, scratch)) {
    return std::string_view(scratch);
  }
  return std::nullopt;
}

}  // namespace quorum::runtime
