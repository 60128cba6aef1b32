// The system's OpenSSL libcrypto (Linux only): RS256 signing for ID tokens. OpenSSL 3 signs RSA-2048 about twice as
// fast as the BoringSSL bundled in swift-crypto on CPUs with AVX-512 IFMA (measured: 420 us against 833-966 us).
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/x509.h>
