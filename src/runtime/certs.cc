#include "src/runtime/certs.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "src/runtime/openssl_ptr.h"

namespace quorum::runtime {
namespace {

// Certificates start an hour before they are issued: a peer whose clock is a
// little behind still accepts them.
constexpr absl::Duration kSkew = absl::Hours(1);

using openssl::BignumPtr;
using openssl::BioPtr;
using openssl::ExtPtr;
using openssl::KeyPtr;
using openssl::NamesPtr;
using openssl::StoreCtxPtr;
using openssl::StorePtr;
using openssl::X509Ptr;

// The most recent OpenSSL error as text (never key material), clearing the
// thread's error queue so it does not leak into later calls.
std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

absl::Status Internal(std::string_view what) {
  return absl::InternalError(absl::StrCat(std::string(what), ": ", OpenSslError()));
}

// Encrypted keys are not supported: refuse to prompt for a passphrase.
int NoPassword(char*, int, int, void*) { return -1; }

BioPtr MemoryBio(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

absl::StatusOr<X509Ptr> ParseCert(std::string_view pem, std::string_view what) {
  BioPtr bio = MemoryBio(pem);
  X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, NoPassword, nullptr) : nullptr);
  if (!cert) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(std::string(what), " is not a PEM certificate"));
  }
  return cert;
}

absl::StatusOr<KeyPtr> ParseKey(std::string_view pem, std::string_view what) {
  BioPtr bio = MemoryBio(pem);
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassword, nullptr) : nullptr);
  if (!key) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), " is not an unencrypted PEM private key"));
  }
  return key;
}

absl::Time FromAsn1(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return absl::InfinitePast();
  return absl::FromTimeT(timegm(&tm));
}

absl::StatusOr<std::string> ToPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return Internal("encoding certificate");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

absl::StatusOr<std::string> ToPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Internal("encoding private key");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

absl::StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return Internal("generating a P-256 key");
  return key;
}

// A certificate with a random positive 127-bit serial, the subject CN (none when empty), the
// public key of `key`, valid from an hour ago until `not_after`.
absl::StatusOr<X509Ptr> NewCert(const std::string& common_name, EVP_PKEY* key,
                                absl::Time not_before, absl::Time not_after) {
  X509Ptr cert(X509_new());
  if (!cert) return Internal("allocating a certificate");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return Internal("random serial");
  serial[0] &= 0x7f;
  serial[0] |= 0x40;  // non-zero leading byte: always 16 bytes, always positive
  BignumPtr bn(BN_bin2bn(serial, sizeof(serial), nullptr));
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (!bn || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get())) == nullptr ||
      ASN1_TIME_set(X509_getm_notBefore(cert.get()), absl::ToTimeT(not_before)) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), absl::ToTimeT(not_after)) == nullptr ||
      (!common_name.empty() &&
       X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                  -1, 0) != 1) ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return Internal("filling in a certificate");
  }
  return cert;
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return Internal(absl::StrCat("adding extension ", OBJ_nid2sn(nid)));
  }
  return absl::OkStatus();
}

bool IsDnsName(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '*') {
      return false;
    }
  }
  return true;
}

absl::Status AddSubjectAltNames(X509* cert, const std::vector<std::string>& dns_names,
                                const std::vector<std::string>& ip_addresses) {
  NamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return Internal("allocating SANs");
  for (const std::string& dns : dns_names) {
    if (!IsDnsName(dns)) {
      return absl::InvalidArgumentError(absl::StrCat("\"", dns, "\" is not a DNS name"));
    }
    ASN1_IA5STRING* value = ASN1_IA5STRING_new();
    GENERAL_NAME* gn = GENERAL_NAME_new();
    if (value == nullptr || gn == nullptr ||
        ASN1_STRING_set(value, dns.data(), static_cast<int>(dns.size())) != 1) {
      ASN1_IA5STRING_free(value);
      GENERAL_NAME_free(gn);
      return Internal("encoding a DNS SAN");
    }
    GENERAL_NAME_set0_value(gn, GEN_DNS, value);
    sk_GENERAL_NAME_push(names.get(), gn);
  }
  for (const std::string& ip : ip_addresses) {
    ASN1_OCTET_STRING* value = a2i_IPADDRESS(ip.c_str());
    if (value == nullptr) {
      ERR_clear_error();
      return absl::InvalidArgumentError(absl::StrCat("\"", ip, "\" is not an IP address"));
    }
    GENERAL_NAME* gn = GENERAL_NAME_new();
    if (gn == nullptr) {
      ASN1_OCTET_STRING_free(value);
      return Internal("encoding an IP SAN");
    }
    GENERAL_NAME_set0_value(gn, GEN_IPADD, value);
    sk_GENERAL_NAME_push(names.get(), gn);
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return Internal("adding SANs");
  }
  return absl::OkStatus();
}

absl::StatusOr<CertKeyPair> SignAndEncode(X509* cert, EVP_PKEY* signer, EVP_PKEY* key) {
  if (X509_sign(cert, signer, EVP_sha256()) <= 0) return Internal("signing the certificate");
  absl::StatusOr<std::string> cert_pem = ToPem(cert);
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ToPem(key);
  if (!key_pem.ok()) return key_pem.status();
  return CertKeyPair{*std::move(cert_pem), *std::move(key_pem)};
}

}  // namespace

absl::StatusOr<CertKeyPair> GenerateCA(std::string common_name, absl::Duration validity,
                                       absl::Time now) {
  if (common_name.empty()) return absl::InvalidArgumentError("CA common name is empty");
  if (validity <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("CA validity must be positive");
  }
  absl::StatusOr<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  absl::StatusOr<X509Ptr> cert = NewCert(common_name, key->get(), now - kSkew, now + validity);
  if (!cert.ok()) return cert.status();
  X509* x = cert->get();
  if (X509_set_issuer_name(x, X509_get_subject_name(x)) != 1) return Internal("setting issuer");
  for (const auto& [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
                                   std::pair{NID_key_usage, "critical,keyCertSign,cRLSign"},
                                   std::pair{NID_subject_key_identifier, "hash"}}) {
    if (absl::Status s = AddExtension(x, x, nid, value); !s.ok()) return s;
  }
  return SignAndEncode(x, key->get(), key->get());
}

namespace {

// A leaf certificate (CA:FALSE) signed by `ca`: subject CN=`common_name` (if
// any) and O=`organization` (if any), extended key usage `eku`, the given
// subject alternative names; its validity ends no later than the CA's.
absl::StatusOr<CertKeyPair> IssueLeaf(const CertKeyPair& ca, const std::string& common_name,
                                      const std::string& organization, const char* eku,
                                      const std::vector<std::string>& dns_names,
                                      const std::vector<std::string>& ip_addresses,
                                      absl::Duration validity, absl::Time now) {
  if (validity <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("certificate validity must be positive");
  }
  absl::StatusOr<X509Ptr> ca_cert = ParseCert(ca.cert_pem, "CA certificate");
  if (!ca_cert.ok()) return ca_cert.status();
  absl::StatusOr<KeyPtr> ca_key = ParseKey(ca.key_pem, "CA key");
  if (!ca_key.ok()) return ca_key.status();
  if (X509_check_private_key(ca_cert->get(), ca_key->get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError("CA key does not match the CA certificate");
  }
  absl::StatusOr<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  const absl::Time not_after =
      std::min(now + validity, FromAsn1(X509_get0_notAfter(ca_cert->get())));
  absl::StatusOr<X509Ptr> cert = NewCert(common_name, key->get(), now - kSkew, not_after);
  if (!cert.ok()) return cert.status();
  X509* x = cert->get();
  if (!organization.empty() &&
      X509_NAME_add_entry_by_NID(X509_get_subject_name(x), NID_organizationName, MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(organization.c_str()), -1,
                                 -1, 0) != 1) {
    return Internal("setting the subject");
  }
  if (X509_set_issuer_name(x, X509_get_subject_name(ca_cert->get())) != 1) {
    return Internal("setting issuer");
  }
  for (const auto& [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
        std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment"},
        std::pair{NID_ext_key_usage, eku}, std::pair{NID_subject_key_identifier, "hash"},
        std::pair{NID_authority_key_identifier, "keyid:always"}}) {
    if (absl::Status s = AddExtension(x, ca_cert->get(), nid, value); !s.ok()) return s;
  }
  if (!dns_names.empty() || !ip_addresses.empty()) {
    if (absl::Status s = AddSubjectAltNames(x, dns_names, ip_addresses); !s.ok()) return s;
  }
  return SignAndEncode(x, ca_key->get(), key->get());
}

}  // namespace

absl::StatusOr<CertKeyPair> GenerateServingCert(const CertKeyPair& ca, std::string common_name,
                                                std::vector<std::string> dns_names,
                                                std::vector<std::string> ip_addresses,
                                                absl::Duration validity, absl::Time now) {
  if (dns_names.empty() && ip_addresses.empty()) {
    return absl::InvalidArgumentError("a serving certificate needs at least one DNS name or IP");
  }
  if (common_name.empty()) {
    common_name = dns_names.empty() ? ip_addresses.front() : dns_names.front();
  }
  return IssueLeaf(ca, common_name, "", "serverAuth", dns_names, ip_addresses, validity, now);
}

absl::StatusOr<CertKeyPair> GenerateMemberCert(const CertKeyPair& ca,
                                               const std::string& organization,
                                               const std::vector<std::string>& dns_names,
                                               const std::vector<std::string>& ip_addresses,
                                               absl::Duration validity, absl::Time now) {
  if (dns_names.empty() && ip_addresses.empty()) {
    return absl::InvalidArgumentError("a member certificate needs at least one DNS name or IP");
  }
  if (organization.empty()) return absl::InvalidArgumentError("member organization is empty");
  return IssueLeaf(ca, "", organization, "serverAuth,clientAuth", dns_names, ip_addresses, validity,
                   now);
}

absl::StatusOr<CertKeyPair> GenerateClientCert(const CertKeyPair& ca,
                                               const std::string& organization,
                                               absl::Duration validity, absl::Time now,
                                               const std::string& common_name) {
  if (organization.empty()) return absl::InvalidArgumentError("client organization is empty");
  return IssueLeaf(ca, common_name, organization, "clientAuth", {}, {}, validity, now);
}

absl::StatusOr<CertificateInfo> InspectCertificate(std::string_view pem) {
  absl::StatusOr<X509Ptr> cert = ParseCert(pem, "certificate");
  if (!cert.ok()) return cert.status();
  X509* x = cert->get();
  CertificateInfo info;
  X509_NAME* subject = X509_get_subject_name(x);
  if (int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1); i >= 0) {
    const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
    info.common_name.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(cn)),
                            static_cast<size_t>(ASN1_STRING_length(cn)));
  }
  if (BignumPtr bn(ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), nullptr)); bn) {
    char* hex = BN_bn2hex(bn.get());
    if (hex != nullptr) info.serial_hex = hex;
    OPENSSL_free(hex);
  }
  info.not_before = FromAsn1(X509_get0_notBefore(x));
  info.not_after = FromAsn1(X509_get0_notAfter(x));
  info.is_ca = (X509_get_extension_flags(x) & EXFLAG_CA) != 0;
  NamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x, NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names.get(), i);
    int type = 0;
    const auto* value = static_cast<const ASN1_STRING*>(GENERAL_NAME_get0_value(gn, &type));
    const auto* data = ASN1_STRING_get0_data(value);
    const int len = ASN1_STRING_length(value);
    if (type == GEN_DNS) {
      info.dns_names.emplace_back(reinterpret_cast<const char*>(data), static_cast<size_t>(len));
    } else if (type == GEN_IPADD && (len == 4 || len == 16)) {
      char text[INET6_ADDRSTRLEN] = {};
      if (inet_ntop(len == 4 ? AF_INET : AF_INET6, data, text, sizeof(text)) != nullptr) {
        info.ip_addresses.emplace_back(text);
      }
    }
  }
  // Extended key usage: without the extension any usage is allowed.
  const uint32_t flags = X509_get_extension_flags(x);
  const uint32_t eku = X509_get_extended_key_usage(x);
  info.client_auth = (flags & EXFLAG_XKUSAGE) == 0 || (eku & XKU_SSL_CLIENT) != 0;
  info.server_auth = (flags & EXFLAG_XKUSAGE) == 0 || (eku & XKU_SSL_SERVER) != 0;
  ERR_clear_error();
  return info;
}

absl::StatusOr<absl::Time> CertificateNotAfter(std::string_view pem) {
  absl::StatusOr<X509Ptr> cert = ParseCert(pem, "certificate");
  if (!cert.ok()) return cert.status();
  return FromAsn1(X509_get0_notAfter(cert->get()));
}

absl::Status VerifyCertificate(std::string_view cert_pem, std::string_view ca_pem, absl::Time at) {
  absl::StatusOr<X509Ptr> cert = ParseCert(cert_pem, "certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<X509Ptr> ca = ParseCert(ca_pem, "CA certificate");
  if (!ca.ok()) return ca.status();
  StorePtr store(X509_STORE_new());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!store || !ctx || X509_STORE_add_cert(store.get(), ca->get()) != 1 ||
      X509_STORE_CTX_init(ctx.get(), store.get(), cert->get(), nullptr) != 1) {
    return Internal("setting up certificate verification");
  }
  X509_STORE_CTX_set_time(ctx.get(), 0, absl::ToTimeT(at));
  if (X509_verify_cert(ctx.get()) != 1) {
    const int err = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return absl::FailedPreconditionError(
        absl::StrCat("certificate does not verify: ", X509_verify_cert_error_string(err)));
  }
  return absl::OkStatus();
}

absl::Status CheckKeyMatchesCertificate(std::string_view cert_pem, std::string_view key_pem) {
  absl::StatusOr<X509Ptr> cert = ParseCert(cert_pem, "certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<KeyPtr> key = ParseKey(key_pem, "private key");
  if (!key.ok()) return key.status();
  if (X509_check_private_key(cert->get(), key->get()) != 1) {
    ERR_clear_error();
    return absl::FailedPreconditionError("private key does not match the certificate");
  }
  return absl::OkStatus();
}

}  // namespace quorum::runtime
