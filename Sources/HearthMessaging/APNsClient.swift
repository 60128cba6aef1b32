/// Public: callers pass the HTTPClient the sends go through (AsyncHTTPClient speaks HTTP/2 to APNs over
/// TLS and keeps the connections: many sends share one connection's streams).
public import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// Sends notifications to APNs over HTTP/2 with token-based authentication.
///
/// One client per app (bundle id) and environment. Each send carries the current provider token from
/// ``APNsCredentials``; when APNs refuses the token as expired or invalid, a new one is made and the send
/// is tried once more. What APNs answers comes back as a ``PushOutcome``; an APNs that cannot be reached
/// is a ``PushOutcome/retry(reason:after:)``.
///
/// Give the `HTTPClient` a short connect timeout (a few seconds): while APNs cannot be reached, the
/// client's pool retries a refused connection until that timeout before the send comes back as a retry.
public struct APNsClient: Sendable {
    /// Where APNs is.
    public enum Endpoint: Sendable, Hashable {
        /// `https://api.push.apple.com`: apps from the App Store, TestFlight and ad hoc builds.
        case production
        /// `https://api.sandbox.push.apple.com`: apps built and run from Xcode.
        case sandbox
        /// Any other base URL (a test double, a proxy).
        case custom(String)

        /// The base URL requests go to.
        public var baseURL: String {
            switch self {
            case .production: "https://api.push.apple.com"
            case .sandbox: "https://api.sandbox.push.apple.com"
            case .custom(let url): url
            }
        }
    }

    /// Where sends go.
    public let endpoint: Endpoint
    /// The app's bundle id (`apns-topic`).
    public let bundleID: String
    /// The provider token's maker.
    public let credentials: APNsCredentials
    private let http: HTTPClient
    private let clock: @Sendable () -> Int64
    /// How long one send may take.
    static let timeout: TimeAmount = .seconds(30)

    /// A client for `bundleID` at `endpoint`, sending through `http`; `clock` gives seconds since 1970.
    public init(
        endpoint: Endpoint, bundleID: String, credentials: APNsCredentials, http: HTTPClient,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.endpoint = endpoint
        self.bundleID = bundleID
        self.credentials = credentials
        self.http = http
        self.clock = clock
    }

    /// Sends `notification` to the device `token`; throws a ``PushError`` only for a notification or
    /// token that cannot be sent at all (nothing was sent).
    public func send(_ notification: PushNotification, to token: String) async throws -> PushOutcome {
        let request = try APNsRequest(notification, token: token, bundleID: bundleID)
        var outcome = PushOutcome.retry(reason: "not sent", after: nil)
        for attempt in 0..<2 {
            let jwt = try credentials.token(now: clock())
            var http = HTTPClientRequest(url: endpoint.baseURL + request.path)
            http.method = .POST
            http.headers.add(name: "authorization", value: "bearer " + jwt)
            for header in request.headers { http.headers.add(name: header.name, value: header.value) }
            http.headers.add(name: "content-type", value: "application/json")
            http.body = .bytes(ByteBuffer(bytes: request.body))
            do {
                let response = try await self.http.execute(http, timeout: Self.timeout)
                let body = try await response.body.collect(upTo: 64 * 1024)
                outcome = .apns(status: Int(response.status.code), body: Array(buffer: body), headers: response.headers.map { ($0.name, $0.value) })
            } catch {
                return .retry(reason: "APNs could not be reached: \(error)", after: nil)
            }
            guard case .credentialRefused = outcome, attempt == 0 else { break }
            credentials.refused(jwt)
        }
        return outcome
    }
}
