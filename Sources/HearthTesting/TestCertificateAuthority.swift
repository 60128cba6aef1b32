import Crypto
import Foundation
/// Public: the authority hands out NIOSSL's certificate and key types for server and client TLS settings.
public import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made for one test run: its root, and a server certificate for 127.0.0.1 that
/// it signed, both valid for a day from now. A client that trusts ``root`` talks TLS to a server that
/// presents ``serverCertificate``, as a real client trusts Apple's or Google's servers.
public struct TestCertificateAuthority: Sendable {
    /// The root certificate, to trust.
    public let root: NIOSSLCertificate
    /// The root certificate in PEM, for a process told to trust it (`hearth serve --push-ca-file`).
    public let rootPEM: String
    /// The server certificate (subject alternative name IP 127.0.0.1, server auth), signed by the root.
    public let serverCertificate: NIOSSLCertificate
    /// The server certificate's key.
    public let serverKey: NIOSSLPrivateKey

    /// A new authority and server certificate (P-256 keys).
    public init() throws {
        let now = Date()
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Hearth test root \(UUID().uuidString.prefix(8))") }
        let rootCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(rootKey))
        let key = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: rootName, subject: try DistinguishedName { CommonName("127.0.0.1") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(rootKey))
        rootPEM = try rootCertificate.serializeAsPEM().pemString
        root = try NIOSSLCertificate(bytes: Array(rootPEM.utf8), format: .pem)
        serverCertificate = try NIOSSLCertificate(bytes: Array(try certificate.serializeAsPEM().pemString.utf8), format: .pem)
        serverKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }

    /// TLS settings for a server presenting ``serverCertificate``.
    public var serverConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(serverCertificate)], privateKey: .privateKey(serverKey))
    }

    /// TLS settings for a client that trusts only ``root``.
    public var clientConfiguration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([root])
        return tls
    }
}
