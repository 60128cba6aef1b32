import Foundation
import HearthAuth
@testable import HearthCommand
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// Phone codes texted through a Twilio-compatible Messages API: a fake provider on port 0 stands in for it.
@Suite("SMS provider")
struct SMSSenderTests {
    /// What the fake provider received.
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var contentType: String?
        var form: [String: String]
    }

    final class FakeProvider: Sendable {
        let received = Mutex<[Received]>([])
        /// When set, the provider refuses every message with this status and Twilio's error shape.
        let failure = Mutex<(UInt, String)?>(nil)

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.post("2010-04-01/Accounts/:account/Messages.json") { request, context -> Response in
                let body = try await request.body.collect(upTo: 1 << 16)
                var form: [String: String] = [:]
                for pair in String(buffer: body).split(separator: "&") {
                    // Form decoding, as the provider does it: `+` is a space, then %XX.
                    let parts = pair.split(separator: "=", maxSplits: 1).map {
                        let spaced = String($0).replacingOccurrences(of: "+", with: " ")
                        return spaced.removingPercentEncoding ?? spaced
                    }
                    form[parts[0]] = parts.count > 1 ? parts[1] : ""
                }
                self.received.withLock {
                    $0.append(Received(
                        path: request.uri.path, authorization: request.headers[.authorization], contentType: request.headers[.contentType],
                        form: form))
                }
                if let (status, message) = self.failure.withLock({ $0 }) {
                    let json = #"{"code":21211,"message":"\#(message)","status":\#(status)}"#
                    return Response(status: .init(code: Int(status)), body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
                }
                return Response(status: .created, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"sid":"SM1","status":"queued"}"#)))
            }
            return router
        }
    }

    static func withProvider(_ body: @Sendable (FakeProvider, String) async throws -> Void) async throws {
        let provider = FakeProvider()
        let app = Application(router: provider.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(provider, "http://127.0.0.1:\(try #require(client.port))")
        }
    }

    @Test func aCodeIsPostedAsTwilioExpectsAndSignsTheUserIn() async throws {
        try await Self.withProvider { provider, base in
            let sms = SMSSender(configuration: SMSConfiguration(baseURL: base, accountSID: "AC123", authToken: "s3cret", from: "+15550100"))
            let failures = Mutex<[String]>([])
            let auth = AuthService(
                projectID: "demo", store: MemoryAccountStore(), keys: KeyRing(current: AuthRouterTests.key),
                hasher: PasswordHasher(rounds: 1 << 4), options: .production(authorizedDomains: []), sender: sms,
                onDeliveryFailure: { _, _, error in failures.withLock { $0.append(error) } })
            let sent = try await auth.sendVerificationCode(.init(phoneNumber: "+4915112345678"), clientAddress: "192.0.2.1")
            let received = try #require(provider.received.withLock { $0.first })
            #expect(received.path == "/2010-04-01/Accounts/AC123/Messages.json")
            #expect(received.authorization == "Basic " + Data("AC123:s3cret".utf8).base64EncodedString())
            #expect(received.contentType == "application/x-www-form-urlencoded")
            #expect(received.form["To"] == "+4915112345678", "the + of the number arrives as a plus")
            #expect(received.form["From"] == "+15550100")
            let text = try #require(received.form["Body"])
            let code = String(try #require(text.firstMatch(of: #/\d{6}/#)).output)
            #expect(failures.withLock { $0 }.isEmpty)
            let signedIn = try await auth.signInWithPhoneNumber(.init(sessionInfo: sent.sessionInfo, code: code))
            #expect(signedIn.phoneNumber == "+4915112345678")
            #expect(signedIn.isNewUser == true)
        }
    }

    @Test func aMessagingServiceIdIsSentAsSuchAndARefusalIsReportedWithoutTheCodeOrTheToken() async throws {
        try await Self.withProvider { provider, base in
            provider.failure.withLock { $0 = (400, "The 'To' number is not a valid phone number.") }
            let sms = SMSSender(configuration: SMSConfiguration(baseURL: base + "/", accountSID: "AC9", authToken: "t0ken-value", from: "MG77"))
            let failures = Mutex<[String]>([])
            let auth = AuthService(
                projectID: "demo", store: MemoryAccountStore(), keys: KeyRing(current: AuthRouterTests.key),
                hasher: PasswordHasher(rounds: 1 << 4), sender: sms,
                onDeliveryFailure: { channel, purpose, error in failures.withLock { $0.append("\(channel) \(purpose) \(error)") } })
            // As on Firebase, the request itself succeeds: the code is valid, the operator hears of the failure.
            _ = try await auth.sendVerificationCode(.init(phoneNumber: "+15550199"))
            let received = try #require(provider.received.withLock { $0.first })
            #expect(received.form["MessagingServiceSid"] == "MG77")
            #expect(received.form["From"] == nil)
            let reported = failures.withLock { $0 }
            #expect(reported.count == 1)
            let failure = reported.first ?? ""
            #expect(failure.contains("sms PHONE") && failure.contains("HTTP 400") && failure.contains("21211"), "\(failure)")
            let code = String(try #require(received.form["Body"]?.firstMatch(of: #/\d{6}/#)).output)
            #expect(!failure.contains(code) && !failure.contains("t0ken-value"))
        }
    }

    @Test func oneClientAddressMayAskForOnlySoManyCodesWhateverTheNumbers() async throws {
        let outbox = OutboxSender()
        var options = AuthService.Options()
        options.smsPerClientAddressPerHour = 3
        let auth = AuthService(
            projectID: "demo", store: MemoryAccountStore(), keys: KeyRing(current: AuthRouterTests.key),
            hasher: PasswordHasher(rounds: 1 << 4), options: options, sender: outbox)
        for i in 0..<3 {
            _ = try await auth.sendVerificationCode(.init(phoneNumber: "+1555010\(i)"), clientAddress: "198.51.100.7")
        }
        await #expect(throws: AuthError.self) {
            try await auth.sendVerificationCode(.init(phoneNumber: "+15550109"), clientAddress: "198.51.100.7")
        }
        // Another address is not held back, and nothing was texted for the refused request.
        _ = try await auth.sendVerificationCode(.init(phoneNumber: "+15550109"), clientAddress: "198.51.100.8")
        #expect(outbox.sent.count == 4)
    }

    @Test func anEmailGivenToTheSMSSenderIsRefused() async throws {
        let sms = SMSSender(configuration: SMSConfiguration(baseURL: "http://127.0.0.1:1", accountSID: "AC1", authToken: "t", from: "+1"))
        await #expect(throws: SMSDeliveryError.self) {
            try await sms.send(OutgoingMessage(channel: .email, to: "a@example.com", subject: "s", body: "b", purpose: "VERIFY_EMAIL"))
        }
    }

    /// The settings `hearth serve` reads (flags, `HEARTH_SMS_*`, the config file's `sms`): a complete account makes a
    /// configuration, an incomplete one is refused with what is missing, none means no provider.
    @Test func smsSettingsMakeAConfigurationOrSayWhatIsMissing() throws {
        let folder = temporaryDataFolder()
        let tokenFile = folder + "/sms-token"
        try Data("tok-123\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        var settings = Settings.SMSSettings()
        #expect(try settings.configuration() == nil)
        settings.apply(environment: ["HEARTH_SMS_ACCOUNT_SID": "ACx", "HEARTH_SMS_AUTH_TOKEN_FILE": tokenFile, "HEARTH_SMS_FROM": "+15550100"])
        let configuration = try #require(try settings.configuration())
        #expect(configuration.authToken == "tok-123" && configuration.baseURL == "https://api.twilio.com" && configuration.from == "+15550100")
        var missingFrom = settings
        missingFrom.from = nil
        #expect(throws: Settings.Failure.self) { try missingFrom.configuration() }
        var missingToken = Settings.SMSSettings()
        missingToken.accountSID = "ACx"
        missingToken.from = "+1555"
        #expect(throws: Settings.Failure.self) { try missingToken.configuration() }
        var badURL = settings
        badURL.baseURL = "ftp://example.com"
        #expect(throws: Settings.Failure.self) { try badURL.configuration() }
        var tokenWithoutAccount = Settings.SMSSettings()
        tokenWithoutAccount.authToken = "t"
        #expect(throws: Settings.Failure.self) { try tokenWithoutAccount.configuration() }
    }

    /// `hearth serve` refuses to start on SMS settings that name an account but no token or sender.
    @Test func hearthServeRefusesAnIncompleteSMSAccount() async throws {
        let refused = try HearthProcess(["serve", "--port", "0", "--data", temporaryDataFolder(), "--dev", "--sms-account-sid", "AC1"])
        #expect(try await refused.exitCode() != 0)
        #expect(refused.stderrText.contains("SMS"), "\(refused.stderrText)")
    }
}
