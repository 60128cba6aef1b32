import Foundation
/// Public: the logger ``TLSCertificates/reload(logger:)`` reports a file that does not load to.
public import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The server's certificate chain and private key, read from two PEM files, and the TLS context
/// new connections are given. ``reload(logger:)`` reads the files again (on SIGHUP): connections
/// that are open keep the context they started with, new ones get the new one, and files that do
/// not load leave the old certificate in use.
///
/// ```swift
/// configuration.tls = try TLSCertificates(certificateFile: "/etc/hearth/cert.pem", keyFile: "/etc/hearth/key.pem")
/// ```
public final class TLSCertificates: Sendable {
    /// The PEM file with the server certificate first, then any intermediates.
    public let certificateFile: String
    /// The PEM file with the certificate's private key (unencrypted).
    public let keyFile: String
    /// `Strict-Transport-Security: max-age=N` on every response when set.
    public let hstsMaxAge: Int?
    /// The context for new connections; replaced as a whole by a successful reload.
    private let current: Mutex<NIOSSLContext>

    /// Largest certificate or key file read (a chain is a few KB; this bounds a wrong path to a big file).
    static let maxFileBytes = 1 << 20
    /// ALPN protocols offered, preferred first: HTTP/2, then HTTP/1.1.
    static let applicationProtocols = ["h2", "http/1.1"]

    /// Loads and checks both files; throws ``TLSLoadError`` when one cannot be read, is not PEM, or the key does
    /// not belong to the certificate.
    public init(certificateFile: String, keyFile: String, hstsMaxAge: Int? = nil) throws {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.hstsMaxAge = hstsMaxAge
        self.current = Mutex(try Self.makeContext(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// The context a connection accepted now uses.
    var context: NIOSSLContext { current.withLock { $0 } }

    /// The `Strict-Transport-Security` value, or nil when HSTS is off.
    var hstsHeaderValue: String? { hstsMaxAge.map { "max-age=\($0)" } }

    /// Reads both files again; on success new connections use them, on failure the old certificate stays and the
    /// reason is logged (file names and the TLS library's error, never key material). Returns whether it swapped.
    @discardableResult
    public func reload(logger: Logger) -> Bool {
        do {
            let context = try Self.makeContext(certificateFile: certificateFile, keyFile: keyFile)
            current.withLock { $0 = context }
            logger.notice("TLS certificate reloaded", metadata: ["hearth.tls.cert": "\(certificateFile)"])
            return true
        } catch {
            logger.error(
                "TLS certificate not reloaded, the previous one stays in use",
                metadata: ["hearth.tls.cert": "\(certificateFile)", "hearth.error": "\(error)"])
            return false
        }
    }

    /// A server context for the files: TLS 1.2 or later, ALPN `h2` and `http/1.1`.
    static func makeContext(certificateFile: String, keyFile: String) throws -> NIOSSLContext {
        let chainBytes = try read(certificateFile, what: "certificate")
        let keyBytes = try read(keyFile, what: "key")
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(chainBytes) } catch {
            throw TLSLoadError("the certificate file \(certificateFile) holds no valid PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw TLSLoadError("the certificate file \(certificateFile) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) } catch {
            throw TLSLoadError("the key file \(keyFile) holds no valid unencrypted PEM private key (\(error))")
        }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = applicationProtocols
        // After our close_notify, wait this long for the client's before closing anyway (NIOSSL's default is 5 s,
        // which an idle client that never reads adds to every shutdown).
        tls.shutdownTimeout = .seconds(1)
        do { return try NIOSSLContext(configuration: tls) } catch {
            throw TLSLoadError("the key in \(keyFile) does not belong to the certificate in \(certificateFile) (\(error))")
        }
    }

    /// The file's bytes, bounded in size.
    private static func read(_ path: String, what: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw TLSLoadError("cannot read the TLS \(what) file \(path)") }
        defer { try? handle.close() }
        let data: Data?
        do { data = try handle.read(upToCount: maxFileBytes + 1) } catch {
            throw TLSLoadError("cannot read the TLS \(what) file \(path)")
        }
        let bytes = Array(data ?? Data())
        guard bytes.count <= maxFileBytes else { throw TLSLoadError("the TLS \(what) file \(path) is larger than \(maxFileBytes) bytes") }
        guard !bytes.isEmpty else { throw TLSLoadError("the TLS \(what) file \(path) is empty") }
        return bytes
    }
}

/// Why the certificate or key could not be used; the message names files, never their contents.
public struct TLSLoadError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, safe to print.
    public let description: String

    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}
