import Foundation
import HearthCore
import HearthServer

extension Settings {
    /// HTTPS: the certificate chain and key files (`--tls-cert`, `--tls-key`; config `tls.cert`, `tls.key`), and
    /// the HSTS max-age (`--hsts-max-age`; config `tls.hstsMaxAge`). Neither file: plain HTTP.
    struct TLSSettings: Equatable {
        /// The PEM certificate chain file.
        var certificate: String?
        /// The PEM private key file.
        var key: String?
        /// Seconds for `Strict-Transport-Security: max-age`; nil: no HSTS.
        var hstsMaxAge: Int?

        /// Longest HSTS max-age accepted: ten years (browsers cap it lower; more is surely a typo).
        static let maxHSTSMaxAge = 10 * 366 * 24 * 3600

        /// The `tls` object of the config file.
        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                switch (m.key, m.value) {
                case ("cert", .string(let v)): certificate = v
                case ("key", .string(let v)): key = v
                case ("hstsMaxAge", .int(let v)): hstsMaxAge = Int(clamping: v)
                default: throw Failure(description: "config file \(path): unknown or mistyped setting \"tls.\(m.key)\"")
                }
            }
        }

        /// `HEARTH_TLS_CERT`, `HEARTH_TLS_KEY`, `HEARTH_HSTS_MAX_AGE`.
        mutating func apply(environment env: [String: String]) throws {
            if let v = env["HEARTH_TLS_CERT"] { certificate = v }
            if let v = env["HEARTH_TLS_KEY"] { key = v }
            if let v = env["HEARTH_HSTS_MAX_AGE"] {
                guard let n = Int(v) else { throw Failure(description: "HEARTH_HSTS_MAX_AGE must be a number of seconds") }
                hstsMaxAge = n
            }
        }

        /// The files and max-age once they are known to go together: both files or neither, HSTS only with TLS and
        /// 0 to ten years. Nil: TLS is off. Does not read the files (``certificates()`` does).
        func checked() throws -> (certificate: String, key: String, hstsMaxAge: Int?)? {
            let certificate = certificate.flatMap { $0.isEmpty ? nil : $0 }
            let key = key.flatMap { $0.isEmpty ? nil : $0 }
            if let hstsMaxAge, !(0...Self.maxHSTSMaxAge).contains(hstsMaxAge) {
                throw Failure(description: "the HSTS max-age must be 0 to \(Self.maxHSTSMaxAge) seconds (got \(hstsMaxAge))")
            }
            switch (certificate, key) {
            case (nil, nil):
                if hstsMaxAge != nil {
                    throw Failure(description: "--hsts-max-age needs TLS (--tls-cert and --tls-key): browsers ignore HSTS over plain HTTP")
                }
                return nil
            case (let certificate?, let key?):
                return (certificate, key, hstsMaxAge)
            default:
                throw Failure(description: "TLS needs both a certificate and a key (--tls-cert and --tls-key, HEARTH_TLS_CERT and HEARTH_TLS_KEY), or neither")
            }
        }

        /// The certificate and key loaded and checked, or nil when TLS is off.
        func certificates() throws -> TLSCertificates? {
            guard let files = try checked() else { return nil }
            do {
                return try TLSCertificates(certificateFile: files.certificate, keyFile: files.key, hstsMaxAge: files.hstsMaxAge)
            } catch let error as TLSLoadError {
                throw Failure(description: error.description)
            }
        }
    }
}
