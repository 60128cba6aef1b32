/// Public: `HTTPClient` is in this file's public API.
public import AsyncHTTPClient
import Foundation
/// Public: `MessageSender` and `OutgoingMessage` are HearthAuth's.
public import HearthAuth
import NIOCore
import NIOHTTP1

/// Where and how Hearth hands phone verification codes to an SMS provider that speaks Twilio's Messages API
/// (`POST {baseURL}/2010-04-01/Accounts/{accountSID}/Messages.json`, form fields `To`, `From` or
/// `MessagingServiceSid`, `Body`, HTTP Basic authentication with the account SID and its auth token). Several
/// providers offer that API; another provider plugs in as a ``HearthAuth/MessageSender`` of its own.
public struct SMSConfiguration: Sendable {
    /// The API's origin, `https://api.twilio.com` for Twilio itself (a test double or a compatible provider otherwise).
    public var baseURL: String
    /// The account the messages are sent from (Twilio's `AC…`), also the Basic user name.
    public var accountSID: String
    /// The account's auth token (the Basic password): a secret, never logged.
    public var authToken: String
    /// The sender: an E.164 number (`From`), or a messaging service id (`MG…`, sent as `MessagingServiceSid`).
    public var from: String
    /// The longest one message may take, connection included.
    public var timeout: Duration

    /// A configuration for `accountSID` on `baseURL`.
    public init(baseURL: String = "https://api.twilio.com", accountSID: String, authToken: String, from: String, timeout: Duration = .seconds(15)) {
        self.baseURL = baseURL
        self.accountSID = accountSID
        self.authToken = authToken
        self.from = from
        self.timeout = timeout
    }
}

/// Why a provider did not take a message: its HTTP status and, when it said so, its error code and message (never
/// the text that was sent, which holds the code, nor the credentials).
public struct SMSDeliveryError: Error, Sendable, CustomStringConvertible {
    /// The provider's HTTP status (0 when no answer came).
    public var status: UInt
    /// The provider's own error code (Twilio's `code`), when its answer had one.
    public var providerCode: Int?
    /// The provider's error message, when its answer had one (at most 200 characters).
    public var providerMessage: String?

    /// What went wrong, for the operator's log.
    public var description: String {
        var text = status == 0 ? "the SMS provider did not answer" : "the SMS provider answered HTTP \(status)"
        if let providerCode { text += ", code \(providerCode)" }
        if let providerMessage { text += ": \(providerMessage)" }
        return text
    }
}

/// Sends auth's SMS (phone verification codes) through an SMS provider's Messages API (``SMSConfiguration``).
/// Emails are not its business: it throws for them (route channels with ``HearthAuth/ChannelRouter``).
///
/// ```swift
/// let sms = SMSSender(configuration: SMSConfiguration(accountSID: "AC…", authToken: token, from: "+15550100"))
/// let sender = ChannelRouter(email: smtp, sms: sms)
/// ```
public struct SMSSender: MessageSender {
    /// The provider and the account.
    public let configuration: SMSConfiguration
    let client: HTTPClient

    /// A sender through `configuration`'s provider, on `client` (the shared client by default).
    public init(configuration: SMSConfiguration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.client = client
    }

    /// The Messages endpoint of the configured account.
    var endpoint: String {
        let base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        return base + "/2010-04-01/Accounts/" + Self.formEncoded(configuration.accountSID) + "/Messages.json"
    }

    /// Posts the message; throws ``SMSDeliveryError`` when the provider does not accept it (2xx).
    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .sms else { throw SMSDeliveryError(status: 0, providerMessage: "an SMS sender sends no email") }
        let sender = configuration.from.hasPrefix("MG") ? "MessagingServiceSid" : "From"
        let form = [("To", message.to), (sender, configuration.from), ("Body", message.body)]
            .map { "\($0.0)=\(Self.formEncoded($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        let credentials = Data("\(configuration.accountSID):\(configuration.authToken)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: form))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: TimeAmount(configuration.timeout))
        } catch {
            throw SMSDeliveryError(status: 0, providerMessage: "\(type(of: error))")
        }
        let body = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            var failure = SMSDeliveryError(status: response.status.code)
            if let body, let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] {
                failure.providerCode = json["code"] as? Int
                failure.providerMessage = (json["message"] as? String).map { String($0.prefix(200)) }
            }
            throw failure
        }
    }

    /// `application/x-www-form-urlencoded` for one value: unreserved characters stay, everything else is %XX
    /// (so `+` in an E.164 number arrives as a plus, not a space).
    static func formEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(UnicodeScalar(byte))
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
