#if canImport(CLibCrypto)
import CLibCrypto

/// RSASSA-PKCS1-v1_5 with SHA-256 (RS256) through the system's OpenSSL libcrypto, on Linux.
///
/// Every token refresh and sign-in signs one ID token, and that signature is most of a refresh's cost. On this
/// project's 2-core benchmark machine OpenSSL 3 signs RSA-2048 in ~420 µs, BoringSSL (swift-crypto) in 833-966 µs.
/// PKCS#1 v1.5 signatures are deterministic, so both libraries produce the same bytes for the same key and input
/// (a test checks this); `SigningKey` falls back to swift-crypto whenever this signer is unavailable or fails.
///
/// The key is read-only after `init`; OpenSSL 3 allows one `EVP_PKEY` to sign on several threads at once, each
/// call with its own digest context.
final class SystemRSASigner: @unchecked Sendable {
    private let key: OpaquePointer

    /// `der`: the private key as PKCS#1 `RSAPrivateKey` or PKCS#8 DER. Nil if OpenSSL cannot read it.
    init?(der: [UInt8]) {
        let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else {
            ERR_clear_error()
            return nil
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The signature of `message` (hashed here with SHA-256), or nil if OpenSSL reports an error.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            return nil
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1, length > 0 else {
            ERR_clear_error()
            return nil
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(signature.prefix(length))
    }
}
#endif
