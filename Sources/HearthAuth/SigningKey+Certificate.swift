import Foundation
import SwiftASN1
import X509
import _CryptoExtras

extension SigningKey {
    /// A self-signed certificate for the key's public half, valid for a year around `now`.
    func selfSignedCertificatePEM(now: Date) throws -> String {
        let name = try DistinguishedName { CommonName("securetoken.hearth.local") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(publicKey),
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(privateKey))
        return try certificate.serializeAsPEM().pemString
    }
}
