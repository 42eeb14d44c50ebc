// X.509 certificates for Quorum's own HTTPS servers (the admission webhook):
// a self-signed CA and serving certificates it signs, client certificates
// for the database pods' etcd access, ECDSA P-256 keys, PEM
// encoded; plus the inspection needed to decide whether stored certificates
// are still good. Built on OpenSSL 3's EVP APIs.
//
// Private keys never appear in error messages.
// Thread-safety: all functions are thread-safe (no shared state).
#ifndef QUORUM_SRC_RUNTIME_CERTS_H_
#define QUORUM_SRC_RUNTIME_CERTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace quorum::runtime {

struct CertKeyPair {
  std::string cert_pem;
  std::string key_pem;  // PKCS#8 PEM
};

// Every certificate below is valid from an hour before `now` (tolerates
// clock skew) until `now` + `validity`: the caller's clock decides, so a test
// can issue certificates at any time it advances to.

// A self-signed CA certificate (CA:TRUE, keyCertSign).
// Errors: InvalidArgument for an empty name or non-positive validity,
// Internal when OpenSSL fails.
absl::StatusOr<CertKeyPair> GenerateCA(std::string common_name, absl::Duration validity,
                                       absl::Time now);

// A serving certificate (serverAuth, CA:FALSE) signed by `ca` with the given
// subject alternative names; at least one is required. Its validity ends no
// later than the CA's.
// Errors: InvalidArgument for an unusable CA (unparsable, key not matching),
// a malformed IP address, no SANs, or non-positive validity; Internal when
// OpenSSL fails.
absl::StatusOr<CertKeyPair> GenerateServingCert(const CertKeyPair& ca, std::string common_name,
                                                std::vector<std::string> dns_names,
                                                std::vector<std::string> ip_addresses,
                                                absl::Duration validity, absl::Time now);

// A certificate for a server that is also a client with the same identity
// (serverAuth and clientAuth, CA:FALSE): etcd members use theirs towards
// each other (peer) and towards themselves (the JSON gateway dials its own
// gRPC server with the server certificate). Subject O=`organization`, no
// CommonName (with auth on, etcd would take one as a user name); at least
// one subject alternative name. Its validity ends no later than the CA's.
// Errors: as GenerateServingCert, and InvalidArgument for an empty
// organization.
absl::StatusOr<CertKeyPair> GenerateMemberCert(const CertKeyPair& ca,
                                               const std::string& organization,
                                               const std::vector<std::string>& dns_names,
                                               const std::vector<std::string>& ip_addresses,
                                               absl::Duration validity, absl::Time now);

// A client certificate (clientAuth, CA:FALSE) signed by `ca` whose subject
// is O=`organization`, plus CN=`common_name` when one is given. etcd's
// clients get none: etcd's JSON gateway refuses client certificates with one
// once auth is on, and etcd's gRPC API would take a CommonName as the user
// name; pgBackRest's TLS server authorises clients by it. Its validity ends
// no later than the CA's.
// Errors: InvalidArgument for an unusable CA, an empty organization or
// non-positive validity; Internal when OpenSSL fails.
absl::StatusOr<CertKeyPair> GenerateClientCert(const CertKeyPair& ca,
                                               const std::string& organization,
                                               absl::Duration validity, absl::Time now,
                                               const std::string& common_name = "");

// What a certificate says about itself.
struct CertificateInfo {
  std::string common_name;
  std::string serial_hex;  // upper-case hex
  absl::Time not_before;
  absl::Time not_after;
  bool is_ca = false;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // textual form, e.g. "127.0.0.1", "::1"
  // What it may authenticate (extended key usage; both without one).
  bool server_auth = false;
  bool client_auth = false;
};

// Errors: InvalidArgument when `pem` holds no parsable certificate.
absl::StatusOr<CertificateInfo> InspectCertificate(std::string_view pem);

// When the (first) certificate in `pem` expires, to decide renewal.
// Errors: InvalidArgument when `pem` holds no parsable certificate.
absl::StatusOr<absl::Time> CertificateNotAfter(std::string_view pem);

// OK when `cert_pem` chains to `ca_pem` and both are valid at `at`.
// Errors: InvalidArgument for unparsable input; FailedPrecondition naming the
// verification failure (expired, wrong issuer, bad signature...).
absl::Status VerifyCertificate(std::string_view cert_pem, std::string_view ca_pem, absl::Time at);

// OK when `key_pem` is the private key of `cert_pem`.
// Errors: InvalidArgument for unparsable input, FailedPrecondition on mismatch.
absl::Status CheckKeyMatchesCertificate(std::string_view cert_pem, std::string_view key_pem);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_CERTS_H_
