// PackedCodec: how a Store keeps its packed (MessagePack) objects in fewer
// bytes. The objects of one informer are mostly alike — every StatefulSet our
// builders make differs from the next in names, labels and a few values — so
// each is compressed (zstd, fast level) against a dictionary that is simply
// one earlier object of the same store: the first one of a usable size. A
// StatefulSet of ~2.9 KB packed then takes a few hundred bytes.
//
// The dictionary is chosen once and kept for the codec's life; an object that
// does not resemble it still compresses as well as zstd does alone. Encoded
// bytes start with a tag (plain or compressed) so that objects packed before
// the dictionary existed, or that did not shrink, are kept as they are.
//
// Thread-safety: not thread-safe (a Store calls it under its lock). The zstd
// contexts are shared by every codec of the process behind one mutex: each
// costs ~100 KiB, and calls take microseconds.
#ifndef QUORUM_SRC_RUNTIME_PACKED_CODEC_H_
#define QUORUM_SRC_RUNTIME_PACKED_CODEC_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct ZSTD_CDict_s;  // zstd.h's ZSTD_CDict

namespace quorum::runtime {

class PackedCodec {
 public:
  // Without a dictionary every object is kept plain (behind its tag): for
  // stores whose objects must not outlive their deletion in memory (Secrets:
  // the dictionary is a copy of one object, kept for the codec's life).
  explicit PackedCodec(bool use_dictionary = true) : use_dictionary_(use_dictionary) {}

  // Objects outside these sizes never become the dictionary.
  static constexpr size_t kMinDictionary = 64;
  static constexpr size_t kMaxDictionary = 64 << 10;

  // `plain` encoded: compressed against the dictionary when that is smaller.
  // The first `plain` of a usable size becomes the dictionary (and is stored
  // compressed against itself, a few bytes).
  std::string Encode(std::string_view plain);
  // The plain bytes of `encoded` (as Encode returned it): a view into
  // `encoded` itself or into `scratch`; nullopt when they are corrupt, which
  // cannot happen to bytes Encode made.
  std::optional<std::string_view> Decode(std::string_view encoded, std::string& scratch) const;

  size_t dictionary_bytes() const { return dictionary_.size(); }

 private:
  struct FreeDictionary {
    void operator()(ZSTD_CDict_s* d) const;
  };
  const bool use_dictionary_;
  std::string dictionary_;
  // dictionary_ prepared for compression (its hash tables, ~50 KiB), made once.
  std::unique_ptr<ZSTD_CDict_s, FreeDictionary> compression_dictionary_;
};

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_PACKED_CODEC_H_
