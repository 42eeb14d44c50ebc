#include "src/backup/s3.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "src/base/strings.h"

namespace quorum::backup {
namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct FileDeleter {
  void operator()(FILE* f) const { std::fclose(f); }
};

size_t CollectBody(char* data, size_t size, size_t n, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (s->size() < 4096) s->append(data, size * n);  // enough for S3's XML error
  return size * n;
}

absl::Status StatusOfHttp(long code, const std::string& body, const std::string& what) {
  if (code >= 200 && code < 300) return absl::OkStatus();
  // S3's XML error names the code (NoSuchBucket, SignatureDoesNotMatch, ...);
  // it never echoes the secret.
  std::string detail;
  if (size_t b = body.find("<Code>"); b != std::string::npos) {
    size_t e = body.find("</Code>", b);
    if (e != std::string::npos) detail = body.substr(b + 6, e - b - 6);
  }
  if (detail.empty() && !body.empty()) {
    // Not S3's XML (a proxy's or the HTTP server's own answer): its first line.
    detail = body.substr(0, std::min<size_t>(body.find('\n'), 200));
  }
  const std::string msg = absl::StrCat(what, ": HTTP ", code, detail.empty() ? "" : " ", detail);
  if (code == 403 || code == 401) return absl::PermissionDeniedError(msg);
  if (code == 404) return absl::NotFoundError(msg);
  if (code >= 500 || code == 429) return absl::UnavailableError(msg);
  return absl::InvalidArgumentError(msg);
}

size_t CollectAll(char* data, size_t size, size_t n, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (s->size() > (8 << 20)) return 0;  // a listing page is far smaller: stop
  s->append(data, size * n);
  return size * n;
}

// What one request sends and where its response body goes: `upload` (PUT),
// `download` (GET into a file), or neither (the body into `response`).
struct Exchange {
  std::string method;
  S3Query query;
  FILE* upload = nullptr;
  uint64_t upload_size = 0;
  FILE* download = nullptr;
  std::string* response = nullptr;
  std::string payload_sha256 = kEmptySha256;
};

std::string EncodedQuery(const S3Query& query) {
  std::string out;
  for (const auto& [k, v] : query) {
    absl::StrAppend(&out, out.empty() ? "?" : "&", UriEncode(k, false), "=", UriEncode(v, false));
  }
  return out;
}

void SetBody(CURL* c, const Exchange& x, std::string& body) {
  if (x.upload != nullptr) {
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READDATA, x.upload);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(x.upload_size));
  } else if (x.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x.method.c_str());
  }
  if (x.download != nullptr) {
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, nullptr);  // fwrite
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x.download);
  } else {
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, x.response != nullptr ? CollectAll : CollectBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x.response != nullptr ? x.response : &body);
  }
}

// One signed request.
absl::Status Perform(const S3Location& location, const SigV4Credentials& credentials,
                     const Exchange& x, absl::Time now) {
  // Object requests carry no query; a bucket request (a listing) does.
  absl::StatusOr<S3Target> target = TargetOf(location, !x.query.empty());
  if (!target.ok()) return target.status();
  const std::string what = absl::StrCat(x.method, " ", UriOf(location));
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  curl_slist* list = nullptr;
  for (const std::string& h :
       SignedRequestHeaders(location, credentials, x.method, x.payload_sha256, now, x.query)) {
    list = curl_slist_append(list, h.c_str());
  }
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  headers.reset(list);
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return absl::InternalError("curl_easy_init failed");
  CURL* c = curl.get();
  std::string body;
  const std::string url = target->url + EncodedQuery(x.query);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // a stalled transfer ends
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  if (!location.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, location.ca_file.c_str());
  SetBody(c, x, body);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(what, ": ", curl_easy_strerror(rc)));
  }
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  return StatusOfHttp(code, x.response != nullptr ? *x.response : body, what);
}

}  // namespace

std::vector<std::string> SignedRequestHeaders(const S3Location& location,
                                              const SigV4Credentials& credentials,
                                              const std::string& method,
                                              const std::string& payload_sha256, absl::Time now,
                                              const S3Query& query) {
  absl::StatusOr<S3Target> target = TargetOf(location, !query.empty());
  if (!target.ok()) return {};
  const std::string amz_date = absl::FormatTime("%Y%m%dT%H%M%SZ", now, absl::UTCTimeZone());
  const SigV4Request req{.method = method,
                         .path = target->path,
                         .query = query,
                         .headers = {{"host", target->host},
                                     {"x-amz-date", amz_date},
                                     {"x-amz-content-sha256", payload_sha256}},
                         .payload_sha256 = payload_sha256};
  return {
      absl::StrCat("x-amz-date: ", amz_date),
      absl::StrCat("x-amz-content-sha256: ", payload_sha256),
      absl::StrCat("Authorization: ",
                   Authorization(req, credentials, {.region = location.region, .service = "s3"}))};
}

absl::StatusOr<S3Target> TargetOf(const S3Location& l, bool bucket_only) {
  absl::string_view rest = l.endpoint;
  std::string scheme;
  if (absl::ConsumePrefix(&rest, "https://")) {
    scheme = "https://";
  } else if (absl::ConsumePrefix(&rest, "http://")) {
    scheme = "http://";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("S3 endpoint \"", l.endpoint, "\": want http(s)://host[:port]"));
  }
  absl::ConsumeSuffix(&rest, "/");
  if (rest.empty() || absl::StrContains(rest, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("S3 endpoint \"", l.endpoint, "\": want http(s)://host[:port]"));
  }
  if (l.bucket.empty()) return absl::InvalidArgumentError("S3 bucket is empty");
  if (l.key.empty() && !bucket_only) return absl::InvalidArgumentError("S3 key is empty");
  S3Target t;
  if (l.force_path_style) {
    t.host = std::string(rest);
    t.path = bucket_only ? absl::StrCat("/", l.bucket) : absl::StrCat("/", l.bucket, "/", l.key);
  } else {
    t.host = absl::StrCat(l.bucket, ".", rest);
    t.path = bucket_only ? "/" : absl::StrCat("/", l.key);
  }
  t.url = absl::StrCat(scheme, t.host, UriEncode(t.path, true));
  return t;
}

std::string UriOf(const S3Location& l) { return absl::StrCat("s3://", l.bucket, "/", l.key); }

absl::Status PutObject(const S3Location& location, const SigV4Credentials& credentials,
                       const std::string& file, const std::string& sha256_hex, absl::Time now) {
  std::unique_ptr<FILE, FileDeleter> f(std::fopen(file.c_str(), "rb"));
  if (!f) return absl::InternalError(absl::StrCat("cannot read ", file));
  std::fseek(f.get(), 0, SEEK_END);
  const long size = std::ftell(f.get());
  std::fseek(f.get(), 0, SEEK_SET);
  if (size < 0) return absl::InternalError(absl::StrCat("cannot size ", file));
  return Perform(location, credentials,
                 {.method = "PUT",
                  .upload = f.get(),
                  .upload_size = static_cast<uint64_t>(size),
                  .payload_sha256 = sha256_hex},
                 now);
}

absl::Status GetObject(const S3Location& location, const SigV4Credentials& credentials,
                       const std::string& file, absl::Time now) {
  std::unique_ptr<FILE, FileDeleter> f(std::fopen(file.c_str(), "wb"));
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", file));
  // A GET with an error status writes S3's XML error into the file; the
  // caller does not use the file then.
  return Perform(location, credentials, {.method = "GET", .download = f.get()}, now);
}

absl::Status DeleteObject(const S3Location& location, const SigV4Credentials& credentials,
                          absl::Time now) {
  return Perform(location, credentials, {.method = "DELETE"}, now);
}

absl::StatusOr<std::string> GetBucketListing(const S3Location& location,
                                             const SigV4Credentials& credentials,
                                             const S3Query& query, absl::Time now) {
  std::string response;
  absl::Status s =
      Perform(location, credentials, {.method = "GET", .query = query, .response = &response}, now);
  if (!s.ok()) return s;
  return response;
}

}  // namespace quorum::backup
