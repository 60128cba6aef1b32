/// Public: callers pass the HTTPClient the sends and the token requests go through.
public import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// Sends notifications through FCM's HTTP v1 API (`POST /v1/projects/{project}/messages:send`) with a
/// service account's OAuth access token.
///
/// The token comes from ``FCMAccessToken`` (fetched from the account's `token_uri`, shared and reused);
/// a 401 for it fetches a new one and tries once more. What FCM answers comes back as a ``PushOutcome``;
/// an FCM or token endpoint that cannot be reached or fails is a ``PushOutcome/retry(reason:after:)``,
/// and a token endpoint that refuses the account (a revoked key) is ``PushOutcome/rejected(reason:)``.
public struct FCMClient: Sendable {
    /// The service account.
    public let account: ServiceAccount
    /// `https://fcm.googleapis.com`, or a test double.
    public let baseURL: String
    private let accessToken: FCMAccessToken
    private let http: HTTPClient
    private let clock: @Sendable () -> Int64
    static let timeout: TimeAmount = .seconds(30)

    /// A token endpoint's refusal of the service account: it will not be different on a retry.
    struct AccountRefused: Error, CustomStringConvertible {
        var description: String
    }

    /// A client for `account`, sending through `http`; `clock` gives seconds since 1970.
    public init(
        account: ServiceAccount, http: HTTPClient, baseURL: String = "https://fcm.googleapis.com",
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.account = account
        self.baseURL = baseURL
        self.http = http
        self.clock = clock
        accessToken = FCMAccessToken(account: account) { account, now in try await Self.fetchToken(account, now: now, http: http) }
    }

    /// Sends `notification` to `recipient`; throws a ``PushError`` only for a notification that cannot be
    /// sent at all (nothing was sent).
    public func send(_ notification: PushNotification, to recipient: FCMMessage.Recipient) async throws -> PushOutcome {
        let body = try FCMMessage.body(notification, to: recipient)
        let toToken = if case .token = recipient { true } else { false }
        var outcome = PushOutcome.retry(reason: "not sent", after: nil)
        for attempt in 0..<2 {
            let token: String
            do {
                token = try await accessToken.token(now: clock())
            } catch let refused as AccountRefused {
                return .rejected(reason: refused.description)
            } catch {
                return .retry(reason: "no FCM access token: \(error)", after: nil)
            }
            var request = HTTPClientRequest(url: "\(baseURL)/v1/projects/\(account.projectID)/messages:send")
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer " + token)
            request.headers.add(name: "content-type", value: "application/json; charset=UTF-8")
            request.body = .bytes(ByteBuffer(bytes: body))
            do {
                let response = try await http.execute(request, timeout: Self.timeout)
                let answer = try await response.body.collect(upTo: 256 * 1024)
                outcome = .fcm(
                    status: Int(response.status.code), body: Array(buffer: answer), headers: response.headers.map { ($0.name, $0.value) },
                    toToken: toToken)
            } catch {
                return .retry(reason: "FCM could not be reached: \(error)", after: nil)
            }
            guard case .credentialRefused = outcome, attempt == 0 else { break }
            await accessToken.refused(token)
        }
        return outcome
    }

    /// Exchanges the account's assertion at its `token_uri`.
    static func fetchToken(_ account: ServiceAccount, now: Int64, http: HTTPClient) async throws -> (token: String, expiresIn: Int64) {
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: try account.tokenRequestBody(now: now)))
        let response = try await http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        let json = try? JSONValue.parse(Array(buffer: body))
        switch response.status.code {
        case 200:
            guard let token = json?["access_token"]?.stringValue, !token.isEmpty else {
                throw PushError("The token endpoint answered without an access_token")
            }
            let lifetime = json?["expires_in"].flatMap { $0.doubleValue }.map { Int64($0) } ?? 3600
            return (token, lifetime)
        case 400..<500:
            let reason = [json?["error"]?.stringValue, json?["error_description"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
            throw AccountRefused(description: "the token endpoint refused the service account (HTTP \(response.status.code)\(reason.isEmpty ? "" : ", " + reason))")
        default:
            throw PushError("the token endpoint answered HTTP \(response.status.code)")
        }
    }
}
