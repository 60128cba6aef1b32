import ArgumentParser
import Foundation
import HTTPTypes
@testable import HearthCommand
@testable import HearthServer
import HearthTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// The TLS settings of `hearth serve` (flags > `HEARTH_*` > the config file's `tls`, both files or neither, HSTS
/// only with TLS), loading and reloading the certificate, and the handlers TLS connections add.
@Suite("TLS", .timeLimit(.minutes(1)))
struct TLSTests {
    /// A self-signed P-256 certificate for 127.0.0.1, made with openssl for these tests (valid for 100 years).
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBnjCCAUSgAwIBAgIUBNs+1qT7V52tmt20etF1C7hTwHswCgYIKoZIzj0EAwIw
        GzEZMBcGA1UEAwwQaGVhcnRoIHVuaXQgdGVzdDAgFw0yNjExMjkxMDU1NDBaGA8y
        MTI2MTEwNTEwNTU0MFowGzEZMBcGA1UEAwwQaGVhcnRoIHVuaXQgdGVzdDBZMBMG
        ByqGSM49AgEGCCqGSM49AwEHA0IABPKt7CUqJSDJjC8XlUZ5B1sHOBvzcusLrVDl
        udm/WIQTZ3y+JkOOymC54aEROHFYJXJEMWL4yShCnZHHuuKIUJSjZDBiMB0GA1Ud
        DgQWBBRj9opLT5V+0zyg8wArM+NHJ68GKjAfBgNVHSMEGDAWgBRj9opLT5V+0zyg
        8wArM+NHJ68GKjAPBgNVHRMBAf8EBTADAQH/MA8GA1UdEQQIMAaHBH8AAAEwCgYI
        KoZIzj0EAwIDSAAwRQIgPEpE17cw1s0xFJDJ25mg73iBpTrwXYNpzR9OQgDxpjsC
        IQDmUZX8PT6H8ArGUc571vS59qaiffln2SlvGtFSbclstw==
        -----END CERTIFICATE-----
        """
    /// The certificate's key.
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJp88jN1UKjYRfG+X
        mtRuBC2kwprovmn6RyNZOjxdd72hRANCAATyrewlKiUgyYwvF5VGeQdbBzgb83Lr
        C61Q5bnZv1iEE2d8viZDjspgueGhEThxWCVyRDFi+MkoQp2Rx7riiFCU
        -----END PRIVATE KEY-----
        """
    /// A key that is not the certificate's.
    static let otherKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguUTKSM+Mw1uj8tkH
        8FKix6b287ZwVnH+8ZyEFjo/4pGhRANCAARaVs0RoIIntc4QI3nZuQFAzeQiIwX0
        SkVSohrbAVa5S21KY/zPg9M1LfznZm+iFUhldqGDv1BQB09mFkjHJkcH
        -----END PRIVATE KEY-----
        """

    /// What `body` threw, as text; nil when it did not throw. (Outside `#expect`: closures in macro arguments can
    /// share a symbol with a sibling, see scripts/check-test-closures.)
    static func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Writes `text` to a new file in `folder`; returns its path.
    static func write(_ text: String, _ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [
        (Settings.TLSSettings(), nil),
        (Settings.TLSSettings(certificate: "c.pem", key: "k.pem"), "ok"),
        (Settings.TLSSettings(certificate: "c.pem", key: "k.pem", hstsMaxAge: 31_536_000), "ok"),
        (Settings.TLSSettings(certificate: "", key: ""), nil),
        (Settings.TLSSettings(certificate: "c.pem"), "both a certificate and a key"),
        (Settings.TLSSettings(key: "k.pem"), "both a certificate and a key"),
        (Settings.TLSSettings(certificate: "c.pem", key: ""), "both a certificate and a key"),
        (Settings.TLSSettings(hstsMaxAge: 60), "needs TLS"),
        (Settings.TLSSettings(certificate: "c.pem", key: "k.pem", hstsMaxAge: -1), "0 to"),
        (Settings.TLSSettings(certificate: "c.pem", key: "k.pem", hstsMaxAge: Settings.TLSSettings.maxHSTSMaxAge + 1), "0 to"),
    ] as [(Settings.TLSSettings, String?)])
    func settingsGoTogetherOrAreRefused(settings: Settings.TLSSettings, outcome: String?) {
        do {
            let files = try settings.checked()
            #expect(outcome == (files == nil ? nil : "ok"))
            if let files {
                #expect(files.certificate == "c.pem" && files.key == "k.pem" && files.hstsMaxAge == settings.hstsMaxAge)
            }
        } catch {
            #expect(outcome.map { "\(error)".contains($0) } == true, "\(error)")
        }
    }

    @Test func theConfigFileTheEnvironmentAndTheFlagsInThatOrder() throws {
        let folder = temporaryDataFolder()
        let config = try Self.write(#"{"tls": {"cert": "/file/c.pem", "key": "/file/k.pem", "hstsMaxAge": 120}}"#, "hearth.json", in: folder)
        var settings = Settings()
        try settings.apply(file: config)
        #expect(settings.tls == Settings.TLSSettings(certificate: "/file/c.pem", key: "/file/k.pem", hstsMaxAge: 120))
        try settings.apply(environment: ["HEARTH_TLS_CERT": "/env/c.pem", "HEARTH_HSTS_MAX_AGE": "60"])
        #expect(settings.tls == Settings.TLSSettings(certificate: "/env/c.pem", key: "/file/k.pem", hstsMaxAge: 60))
        let notANumber = Self.failure { try settings.apply(environment: ["HEARTH_HSTS_MAX_AGE": "a year"]) }
        #expect(notANumber?.contains("HEARTH_HSTS_MAX_AGE must be a number") == true)
        let serve = try Serve.parse(["--config", config, "--tls-key", "/flag/k.pem", "--hsts-max-age", "5"])
        #expect(try serve.resolve().tls == Settings.TLSSettings(certificate: "/file/c.pem", key: "/flag/k.pem", hstsMaxAge: 5))
        // A misspelt key in the file is refused, not ignored.
        let typo = try Self.write(#"{"tls": {"certificate": "/file/c.pem"}}"#, "typo.json", in: folder)
        var other = Settings()
        let misspelt = Self.failure { try other.apply(file: typo) }
        #expect(misspelt?.contains("\"tls.certificate\"") == true)
        // HSTS without TLS stops the flags from resolving.
        let plainHSTS = Self.failure { _ = try Serve.parse(["--data", temporaryDataFolder(), "--hsts-max-age", "5"]).resolve() }
        #expect(plainHSTS?.contains("needs TLS") == true)
    }

    @Test func certificatesLoadAndABadKeyOrFileIsAClearError() throws {
        let folder = temporaryDataFolder()
        let cert = try Self.write(Self.certificate, "c.pem", in: folder)
        let key = try Self.write(Self.key, "k.pem", in: folder)
        let other = try Self.write(Self.otherKey, "other.pem", in: folder)
        let garbage = try Self.write("not PEM", "garbage.pem", in: folder)
        let loaded = try TLSCertificates(certificateFile: cert, keyFile: key, hstsMaxAge: 300)
        #expect(loaded.hstsHeaderValue == "max-age=300")
        #expect(try TLSCertificates(certificateFile: cert, keyFile: key).hstsHeaderValue == nil)
        let cases: [(String, String, String)] = [
            (cert, other, "does not belong to the certificate"),
            (folder + "/missing.pem", key, "cannot read the TLS certificate file"),
            (cert, folder + "/missing.pem", "cannot read the TLS key file"),
            (garbage, key, "no valid PEM certificate"),
            (cert, garbage, "no valid unencrypted PEM private key"),
        ]
        for (c, k, message) in cases {
            let error = Self.failure { _ = try TLSCertificates(certificateFile: c, keyFile: k) }
            #expect(error?.contains(message) == true, "\(String(describing: error))")
            #expect(error?.contains("PRIVATE KEY") == false)
        }
        // The settings turn the load error into the start-up failure.
        let startFailure = Self.failure { _ = try Settings.TLSSettings(certificate: cert, key: other).certificates() }
        #expect(startFailure?.contains("does not belong to the certificate") == true)
    }

    @Test func aReloadSwapsTheContextOnlyWhenTheNewFilesLoad() throws {
        let folder = temporaryDataFolder()
        let cert = try Self.write(Self.certificate, "c.pem", in: folder)
        let key = try Self.write(Self.key, "k.pem", in: folder)
        let certificates = try TLSCertificates(certificateFile: cert, keyFile: key)
        let logger = Logger(label: "tls-test")
        let first = certificates.context
        _ = try Self.write(Self.otherKey, "k.pem", in: folder)
        #expect(certificates.reload(logger: logger) == false)
        #expect(certificates.context === first)
        _ = try Self.write(Self.key, "k.pem", in: folder)
        #expect(certificates.reload(logger: logger) == true)
        #expect(certificates.context !== first)
    }

    @Test func hstsIsAddedToEveryResponseHead() throws {
        let channel = EmbeddedChannel(handler: HSTSHandler(value: "max-age=60"))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(head.headerFields[.strictTransportSecurity] == "max-age=60")
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == .end(nil))
        _ = try channel.finish()
    }

    @Test func connectionSpecificFieldsDoNotReachHTTP2() throws {
        let channel = EmbeddedChannel(handler: HTTP2ConnectionFieldFilter())
        var fields: HTTPFields = [.connection: "keep-alive", .contentType: "text/event-stream", .transferEncoding: "chunked"]
        fields[HTTPField.Name("Keep-Alive")!] = "timeout=5"
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: fields)))
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(head.headerFields == [.contentType: "text/event-stream"])
        _ = try channel.finish()
    }

    @Test(arguments: [(40, 1000, HTTPResponse.Status.uriTooLong), (1000, 60, .requestHeaderFieldsTooLarge)])
    func anHTTP2HeadOverTheLimitsIsRefused(maxURL: Int, maxHead: Int, status: HTTPResponse.Status) throws {
        var limits = RequestHeadLimits()
        limits.maxURLBytes = maxURL
        limits.maxHeadBytes = maxHead
        let channel = EmbeddedChannel(handler: HTTP2HeadLimit(limits: limits))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        // Within both limits: passed on.
        let small = HTTPRequest(method: .get, scheme: "https", authority: "h", path: "/a.json")
        try channel.writeInbound(HTTPRequestPart.head(small))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .head(small))
        let big = HTTPRequest(
            method: .get, scheme: "https", authority: "h", path: "/" + String(repeating: "a", count: 50),
            headerFields: [.userAgent: String(repeating: "u", count: 30)])
        let refused = EmbeddedChannel(handler: HTTP2HeadLimit(limits: limits))
        try refused.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try refused.writeInbound(HTTPRequestPart.head(big))
        try refused.writeInbound(HTTPRequestPart.end(nil))
        #expect(try refused.readInbound(as: HTTPRequestPart.self) == nil)
        guard case .head(let head) = try refused.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no response"); return }
        #expect(head.status == status)
        #expect(try refused.readOutbound(as: HTTPResponsePart.self) == .end(nil))
        #expect(!refused.isActive)
        _ = try channel.finish()
    }

    @Test func anHTTP2ConnectionIsClosedTheGraceAfterTheShutdownBegan() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: HTTP2ShutdownDeadline(grace: .seconds(5)), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive, "closed without a shutdown")
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive, "closed before the grace ended")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }
}
