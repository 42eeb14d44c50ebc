#include "src/etcd/snapshot.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "etcd/api/etcdserverpb/rpc.grpc.pb.h"
#include "src/base/strings.h"
#include "src/etcd/connection.h"

namespace quorum::etcd {
namespace {

constexpr size_t kTrailer = SHA256_DIGEST_LENGTH;

std::string Hex(const unsigned char* d, size_t n) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d), n));
}

}  // namespace

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
  internal::Connection& conn = client.connection();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = conn.ChannelTo(endpoint);
  if (!channel.ok()) return channel.status();
  grpc::ClientContext ctx;  // no deadline: a large database takes its time
  if (absl::StatusOr<internal::Credentials> c = conn.AddCredentials(ctx); !c.ok()) {
    return c.status();
  }
  CancellationRegistration wake(cancel, [&ctx] { ctx.TryCancel(); });
  etcdserverpb::Maintenance::Stub stub(*channel);
  std::unique_ptr<grpc::ClientReader<etcdserverpb::SnapshotResponse>> stream =
      stub.Snapshot(&ctx, etcdserverpb::SnapshotRequest());
  SnapshotDigest digest;
  SnapshotInfo info;
  absl::Status ended;
  bool last_seen = false;
  etcdserverpb::SnapshotResponse m;
  while (stream->Read(&m)) {
    if (m.header().revision() > 0 && info.revision == 0) info.revision = m.header().revision();
    digest.Feed(m.blob());
    if (absl::Status s = sink(m.blob()); !s.ok()) {
      ended = s;
      break;
    }
    if (m.remaining_bytes() == 0) last_seen = true;
  }
  if (!ended.ok()) ctx.TryCancel();
  const grpc::Status finished = stream->Finish();
  if (!ended.ok()) return ended;
  if (absl::Status s = internal::StatusOf(finished, what); !s.ok()) {
    conn.ReleaseIfBroken(endpoint, *channel, s);
    return s;
  }
  if (!last_seen) return absl::DataLossError(absl::StrCat(what, ": the stream ended early"));
  absl::StatusOr<SnapshotDigestResult> d = digest.Finish();
  if (!d.ok())
    return absl::Status(d.status().code(), absl::StrCat(what, ": ", d.status().message()));
  info.digest = *d;
  return info;
}

}  // namespace quorum::etcd
