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
// Scratch buffers above this are given back after use.
constexpr size_t kKeepScratch = 64 << 10;

// One compression and one decompression context for the whole process, and
// the compression's output buffer (reused: a fresh multi-KiB buffer per call
// would make glibc consolidate its fast bins each time).
class Contexts {
 public:
  static Contexts& Get() {
    static Contexts* const contexts = new Contexts();  // never destroyed: used until exit
    return *contexts;
  }
  Contexts() : cctx_(ZSTD_createCCtx()), dctx_(ZSTD_createDCtx()) {}

  // `tag` then `plain` compressed with `dictionary`, if that is smaller than
  // `plain`; nullopt otherwise (or when zstd fails).
  std::optional<std::string> Compress(std::string_view plain, const ZSTD_CDict* dictionary) {
    absl::MutexLock lock(&mu_);
    buffer_.resize(ZSTD_compressBound(plain.size()));
    const size_t n = ZSTD_compress_usingCDict(cctx_, buffer_.data(), buffer_.size(), plain.data(),
                                              plain.size(), dictionary);
    std::optional<std::string> out;
    if (!ZSTD_isError(n) && n < plain.size()) {
      out.emplace();
      out->reserve(n + 1);
      out->push_back(kZstd);
      out->append(buffer_.data(), n);
    }
    if (buffer_.capacity() > kKeepScratch) std::string().swap(buffer_);
    return out;
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
  std::string buffer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void PackedCodec::FreeDictionary::operator()(ZSTD_CDict_s* d) const { ZSTD_freeCDict(d); }

std::string PackedCodec::Encode(std::string_view plain) {
  if (use_dictionary_ && dictionary_.empty() && plain.size() >= kMinDictionary &&
      plain.size() <= kMaxDictionary) {
    dictionary_.assign(plain);
    compression_dictionary_.reset(ZSTD_createCDict(dictionary_.data(), dictionary_.size(), kLevel));
  }
  if (compression_dictionary_ != nullptr) {
    std::optional<std::string> compressed =
        Contexts::Get().Compress(plain, compression_dictionary_.get());
    if (compressed) return *std::move(compressed);
  }
  std::string out;
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
