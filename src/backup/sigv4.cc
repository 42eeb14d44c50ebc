#include "src/backup/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "src/base/strings.h"

namespace quorum::backup {
namespace {

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<const char*>(out), n);
}

// Header values are trimmed and inner runs of spaces become one.
std::string CanonicalValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : absl::StripAsciiWhitespace(Absl(v))) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string HeaderValue(const SigV4Request& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (absl::EqualsIgnoreCase(k, Absl(name))) return v;
  }
  return "";
}

}  // namespace

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), d);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d), sizeof d));
}

std::string CanonicalRequest(const SigV4Request& r, bool path_encoded_once,
                             std::string* signed_headers) {
  std::string path = r.path.empty() ? "/" : UriEncode(r.path, true);
  if (!path_encoded_once) path = UriEncode(path, true);
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [k, v] : r.query) query.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(query.begin(), query.end());
  std::map<std::string, std::string> headers;  // sorted by lower-case name
  for (const auto& [k, v] : r.headers) {
    std::string& slot = headers[absl::AsciiStrToLower(k)];
    slot = slot.empty() ? CanonicalValue(v) : absl::StrCat(slot, ",", CanonicalValue(v));
  }
  std::string canonical_headers, names;
  for (const auto& [k, v] : headers) {
    absl::StrAppend(&canonical_headers, k, ":", v, "\n");
    absl::StrAppend(&names, names.empty() ? "" : ";", k);
  }
  if (signed_headers != nullptr) *signed_headers = names;
  return absl::StrCat(r.method, "\n", path, "\n",
                      absl::StrJoin(query, "&", absl::PairFormatter("=")), "\n", canonical_headers,
                      "\n", names, "\n", r.payload_sha256);
}

std::string SigningKey(std::string_view secret_access_key, std::string_view date,
                       const SigV4Scope& scope) {
  std::string k = Hmac(absl::StrCat("AWS4", Absl(secret_access_key)), date);
  k = Hmac(k, scope.region);
  k = Hmac(k, scope.service);
  return Hmac(k, "aws4_request");
}

SigV4Credentials CleanCredentials(std::string_view access_key_id,
                                  std::string_view secret_access_key) {
  auto strip = [](std::string_view v) {
    return std::string(absl::StripAsciiWhitespace(absl::string_view(v.data(), v.size())));
  };
  return {strip(access_key_id), strip(secret_access_key)};
}

std::string Authorization(const SigV4Request& request, const SigV4Credentials& credentials,
                          const SigV4Scope& scope) {
  const std::string amz_date = HeaderValue(request, "x-amz-date");
  const std::string date = amz_date.substr(0, 8);
  std::string signed_headers;
  const std::string canonical = CanonicalRequest(request, scope.service == "s3", &signed_headers);
  const std::string credential_scope =
      absl::StrCat(date, "/", scope.region, "/", scope.service, "/aws4_request");
  const std::string to_sign = absl::StrCat("AWS4-HMAC-SHA256\n", amz_date, "\n", credential_scope,
                                           "\n", Sha256Hex(canonical));
  const std::string signature =
      absl::BytesToHexString(Hmac(SigningKey(credentials.secret_access_key, date, scope), to_sign));
  return absl::StrCat("AWS4-HMAC-SHA256 Credential=", credentials.access_key_id, "/",
                      credential_scope, ", SignedHeaders=", signed_headers,
                      ", Signature=", signature);
}

}  // namespace quorum::backup
