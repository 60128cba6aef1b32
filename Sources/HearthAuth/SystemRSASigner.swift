#if os(Linux)
import Glibc
import Synchronization

/// RSASSA-PKCS1-v1_5 with SHA-256 (RS256) through the system's OpenSSL 3 libcrypto, on Linux.
///
/// Every token refresh and sign-in signs one ID token, and that signature is most of a refresh's cost. On this
/// project's 2-core benchmark machine OpenSSL 3 signs RSA-2048 in ~420 µs, BoringSSL (swift-crypto) in 833-966 µs.
/// PKCS#1 v1.5 signatures are deterministic, so both libraries produce the same bytes for the same key and input
/// (a test checks this); `SigningKey` falls back to swift-crypto whenever this signer is unavailable or fails.
///
/// libcrypto is opened with `dlopen` at the first signature, not linked: building needs no OpenSSL headers, a machine
/// without `libcrypto.so.3` still works (through swift-crypto), and a server that signs nothing does not carry the
/// library's ~3.6 MB of mapped pages in its idle RSS (measured: linking it raised idle RSS from 46.3 to 50.9 MB).
///
/// The key is read-only once created; OpenSSL 3 allows one `EVP_PKEY` to sign on several threads at once, each call
/// with its own digest context.
final class SystemRSASigner: Sendable {
    private let der: [UInt8]
    /// The key in OpenSSL, made at the first signature; `.unavailable` if that failed (never retried).
    private let key = Mutex<KeyState>(.notLoaded)

    private enum KeyState {
        case notLoaded
        case loaded(OpaquePointer)
        case unavailable
    }

    /// `der`: the private key as PKCS#1 `RSAPrivateKey` or PKCS#8 DER.
    init(der: [UInt8]) {
        self.der = der
    }

    deinit {
        if case .loaded(let pointer) = key.withLock({ $0 }), let library = LibCrypto.shared {
            library.freeKey(pointer)
        }
    }

    /// True once OpenSSL has read the key (loading it now if needed).
    var isAvailable: Bool { loadedKey() != nil }

    /// The signature of `message` (hashed here with SHA-256), or nil if OpenSSL is missing or reports an error.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let library = LibCrypto.shared, let pkey = loadedKey(), let context = library.newDigestContext() else {
            return nil
        }
        defer { library.freeDigestContext(context) }
        guard library.digestSignInit(context, nil, library.sha256(), nil, pkey) == 1 else {
            library.clearErrors()
            return nil
        }
        var length = 0
        guard library.digestSign(context, nil, &length, message, message.count) == 1, length > 0 else {
            library.clearErrors()
            return nil
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard library.digestSign(context, &signature, &length, message, message.count) == 1 else {
            library.clearErrors()
            return nil
        }
        return Array(signature.prefix(length))
    }

    private func loadedKey() -> OpaquePointer? {
        key.withLock { state -> OpaquePointer? in
            switch state {
            case .loaded(let pointer): return pointer
            case .unavailable: return nil
            case .notLoaded:
                guard let library = LibCrypto.shared else {
                    state = .unavailable
                    return nil
                }
                let pointer = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                    var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                    return library.readPrivateKey(nil, &cursor, buffer.count)
                }
                guard let pointer else {
                    library.clearErrors()
                    state = .unavailable
                    return nil
                }
                state = .loaded(pointer)
                return pointer
            }
        }
    }
}

/// The eight libcrypto functions the signer calls, looked up once in `libcrypto.so.3`.
struct LibCrypto: Sendable {
    typealias ReadPrivateKey = @convention(c) (
        UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int
    ) -> OpaquePointer?
    typealias FreePointer = @convention(c) (OpaquePointer?) -> Void
    typealias NewPointer = @convention(c) () -> OpaquePointer?
    typealias DigestSignInit = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?
    ) -> Int32
    typealias DigestSign = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int
    ) -> Int32
    typealias Clear = @convention(c) () -> Void

    let readPrivateKey: ReadPrivateKey
    let freeKey: FreePointer
    let newDigestContext: NewPointer
    let freeDigestContext: FreePointer
    let sha256: NewPointer
    let digestSignInit: DigestSignInit
    let digestSign: DigestSign
    let clearErrors: Clear

    /// Nil when the library or one of its functions is missing.
    static let shared: LibCrypto? = {
        guard let handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
        guard let readPrivateKey = symbol("d2i_AutoPrivateKey", as: ReadPrivateKey.self),
            let freeKey = symbol("EVP_PKEY_free", as: FreePointer.self),
            let newDigestContext = symbol("EVP_MD_CTX_new", as: NewPointer.self),
            let freeDigestContext = symbol("EVP_MD_CTX_free", as: FreePointer.self),
            let sha256 = symbol("EVP_sha256", as: NewPointer.self),
            let digestSignInit = symbol("EVP_DigestSignInit", as: DigestSignInit.self),
            let digestSign = symbol("EVP_DigestSign", as: DigestSign.self),
            let clearErrors = symbol("ERR_clear_error", as: Clear.self)
        else {
            dlclose(handle)
            return nil
        }
        return LibCrypto(
            readPrivateKey: readPrivateKey, freeKey: freeKey, newDigestContext: newDigestContext,
            freeDigestContext: freeDigestContext, sha256: sha256, digestSignInit: digestSignInit,
            digestSign: digestSign, clearErrors: clearErrors)
    }()
}
#endif
