// AWS Signature Version 4 for S3 requests: the canonical request, the string
// to sign, the derived signing key and the Authorization header, as AWS's
// "Signature Version 4 signing process" defines them. Pure functions (no
// clock, no I/O): the caller passes the time as x-amz-date.
//
// The secret key is an input only; nothing here logs or returns it.
#ifndef QUORUM_SRC_BACKUP_SIGV4_H_
#define QUORUM_SRC_BACKUP_SIGV4_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quorum::backup {

struct SigV4Credentials {
  std::string access_key_id;
  std::string secret_access_key;
};

// Credentials as a Secret holds them, without surrounding whitespace: a
// Secret made with `kubectl create secret generic --from-file` keeps the
// file's final newline, which would split the Authorization header (the
// store answers HTTP 400, or resets the connection during an upload). Access
// keys and secret keys never contain whitespace.
SigV4Credentials CleanCredentials(std::string_view access_key_id,
                                  std::string_view secret_access_key);

struct SigV4Request {
  std::string method;  // GET, PUT, ...
  std::string path;    // the URI path, not yet encoded, e.g. /bucket/key with spaces
  // Query parameters, not yet encoded, in any order.
  std::vector<std::pair<std::string, std::string>> query;
  // Headers to sign (host and x-amz-date at least), names in any case, in any order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  // lowercase hex, or "UNSIGNED-PAYLOAD"
};

struct SigV4Scope {
  std::string region;   // e.g. us-east-1
  std::string service;  // "s3"
};

// RFC 3986 encoding as SigV4 wants it: unreserved characters stay, every other
// byte becomes %XX (upper case); '/' stays when `keep_slash`.
std::string UriEncode(std::string_view s, bool keep_slash);

std::string Sha256Hex(std::string_view data);

// The canonical request; `signed_headers` receives "host;x-amz-date;...".
// `path_encoded_once`: S3 encodes the path once; other services twice.
std::string CanonicalRequest(const SigV4Request& request, bool path_encoded_once,
                             std::string* signed_headers);

// The signing key for `date` (YYYYMMDD), as raw bytes.
std::string SigningKey(std::string_view secret_access_key, std::string_view date,
                       const SigV4Scope& scope);

// The Authorization header value. `request.headers` must hold x-amz-date
// (YYYYMMDDTHHMMSSZ); the date of the scope is its first 8 characters.
std::string Authorization(const SigV4Request& request, const SigV4Credentials& credentials,
                          const SigV4Scope& scope);

}  // namespace quorum::backup

#endif  // QUORUM_SRC_BACKUP_SIGV4_H_
