#include "src/etcd/snapshot.h"

#include <openssl/sha.h>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/strings.h"
#include "src/etcd/errors.h"
#include "src/etcd/gateway_json.h"
#include "src/etcd/watch_wire.h"

namespace quorum::etcd {
namespace {

using nlohmann::json;
constexpr size_t kTrailer = SHA256_DIGEST_LENGTH;

using gateway::Field;
using gateway::U64;

std::string Hex(const unsigned char* d, size_t n) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d), n));
}

}  // namespace

namespace wire {

absl::StatusOr<SnapshotMessage> ParseSnapshotMessage(std::string_view object) {
  const json j = json::parse(object.begin(), object.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InternalError("a snapshot message is not a JSON object");
  }
  if (const json* error = Field(j, "error"); error != nullptr) {
    const long http = U64(*error, "http_code") > 0 ? U64(*error, "http_code") : 500;
    const uint64_t code = U64(*error, "code") > 0 ? U64(*error, "code") : U64(*error, "grpc_code");
    json body{{"message", (*error).value("message", std::string())}};
    if (code > 0) body["code"] = code;
    return StatusFromResponse(http, body.dump(), "snapshot");
  }
  const json* result = Field(j, "result");
  if (result == nullptr || !result->is_object()) {
    return absl::InternalError("a snapshot message has neither a result nor an error");
  }
  SnapshotMessage m;
  if (const json* header = Field(*result, "header"); header != nullptr) {
    m.revision = static_cast<int64_t>(U64(*header, "revision"));
  }
  m.remaining_bytes = U64(*result, "remaining_bytes");
  if (const json* blob = Field(*result, "blob"); blob != nullptr) {
    if (!blob->is_string() || !absl::Base64Unescape(blob->get_ref<const std::string&>(), &m.blob)) {
      return absl::InternalError("a snapshot message's blob is not base64");
    }
  }
  return m;
}

}  // namespace wire

SnapshotDigest::SnapshotDigest() : whole_(EVP_MD_CTX_new()), body_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(whole_, EVP_sha256(), nullptr);
  EVP_DigestInit_ex(body_, EVP_sha256(), nullptr);
}

SnapshotDigest::~SnapshotDigest() {
  EVP_MD_CTX_free(whole_);
  EVP_MD_CTX_free(body_);
}

void SnapshotDigest::Feed(std::string_view bytes) {
  EVP_DigestUpdate(whole_, bytes.data(), bytes.size());
  size_ += bytes.size();
  // Whatever falls out of the last 32 bytes belongs to the body.
  holdback_.append(bytes);
  if (holdback_.size() > kTrailer) {
    const size_t out = holdback_.size() - kTrailer;
    EVP_DigestUpdate(body_, holdback_.data(), out);
    holdback_.erase(0, out);
  }
}

absl::StatusOr<SnapshotDigestResult> SnapshotDigest::Finish() {
  unsigned char whole[EVP_MAX_MD_SIZE], body[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(whole_, whole, &n);
  EVP_DigestFinal_ex(body_, body, &n);
  if (holdback_.size() < kTrailer || size_ <= kTrailer) {
    return absl::DataLossError(
        absl::StrCat("snapshot of ", size_, " bytes is shorter than its SHA-256 trailer"));
  }
  if (holdback_ != std::string_view(reinterpret_cast<const char*>(body), kTrailer)) {
    return absl::DataLossError(
        absl::StrCat("snapshot of ", size_, " bytes: its SHA-256 trailer ",
                     Hex(reinterpret_cast<const unsigned char*>(holdback_.data()), kTrailer),
                     " does not match the data (", Hex(body, kTrailer), ")"));
  }
  return SnapshotDigestResult{.size = size_, .sha256 = Hex(whole, kTrailer)};
}

absl::StatusOr<SnapshotInfo> StreamSnapshot(
    Client& client, std::string_view endpoint,
    const std::function<absl::Status(std::string_view)>& sink, Cancellation* cancel) {
  const std::string what = absl::StrCat("snapshot from ", Absl(endpoint));
  WatchFramer framer;  // frames any stream of JSON objects, not only watches
  SnapshotDigest digest;
  SnapshotInfo info;
  absl::Status ended;
  bool last_seen = false;
  auto on_message = [&](std::string_view object) {
    absl::StatusOr<SnapshotMessage> m = wire::ParseSnapshotMessage(object);
    if (!m.ok()) {
      ended = absl::Status(m.status().code(), absl::StrCat(what, ": ", m.status().message()));
      return false;
    }
    if (m->revision > 0 && info.revision == 0) info.revision = m->revision;
    digest.Feed(m->blob);
    if (absl::Status s = sink(m->blob); !s.ok()) {
      ended = s;
      return false;
    }
    if (m->remaining_bytes == 0) last_seen = true;
    return true;
  };
  absl::StatusOr<kube::HttpResponse> resp = client.Stream(
      endpoint, "/v3/maintenance/snapshot", "{}",
      [&](std::string_view chunk) {
        absl::Status s = framer.Feed(chunk, on_message);
        if (!s.ok() && ended.ok())
          ended = absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
        return ended.ok();
      },
      cancel);
  if (!ended.ok()) return ended;
  if (!resp.ok()) return resp.status();
  if (absl::Status s = StatusFromResponse(resp->code, resp->body, what); !s.ok()) return s;
  if (!last_seen) return absl::DataLossError(absl::StrCat(what, ": the stream ended early"));
  absl::StatusOr<SnapshotDigestResult> d = digest.Finish();
  if (!d.ok())
    return absl::Status(d.status().code(), absl::StrCat(what, ": ", d.status().message()));
  info.digest = *d;
  return info;
}

}  // namespace quorum::etcd
