// unique_ptr owners for the OpenSSL objects Quorum creates (certificates,
// keys, BIOs, stores), so every exit path frees them. Header-only.
#ifndef QUORUM_SRC_RUNTIME_OPENSSL_PTR_H_
#define QUORUM_SRC_RUNTIME_OPENSSL_PTR_H_

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace quorum::runtime::openssl {

template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};

using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX_free>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES_free>>;

inline void FreeChain(STACK_OF(X509) * chain) { sk_X509_pop_free(chain, X509_free); }
using ChainPtr = std::unique_ptr<STACK_OF(X509), Deleter<FreeChain>>;

}  // namespace quorum::runtime::openssl

#endif  // QUORUM_SRC_RUNTIME_OPENSSL_PTR_H_
