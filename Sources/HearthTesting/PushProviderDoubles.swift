import Crypto
import Foundation
import HTTPTypes
import HearthAuth
/// Public: notifications are recorded as the JSON values the providers received.
public import HearthCore
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import _CryptoExtras

/// What a push provider double can be told to answer instead of accepting the next notifications.
public struct ScriptedPushAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// APNs's `reason`, or FCM's error code (`QUOTA_EXCEEDED`, `UNAVAILABLE`, …).
    public var reason: String
    /// A `Retry-After` header, in seconds.
    public var retryAfter: Int?

    /// An answer of `status` with `reason`.
    public init(status: Int, reason: String, retryAfter: Int? = nil) {
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
    }
}

/// A notification a double accepted.
public struct ReceivedPush: Sendable, Hashable {
    /// The device token (APNs) or registration token / topic (FCM).
    public var token: String
    /// The request's headers, names lowercased.
    public var headers: [String: String]
    /// The JSON body: APNs's payload, or FCM's `message` object.
    public var payload: JSONValue
}

/// Runs a Hummingbird application on 127.0.0.1 until stopped.
final class LoopbackApplication: Sendable {
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>, port: Int)?>(nil)

    /// Starts `make(port)`'s application; returns the port it listens on.
    func start(
        port: Int, _ make: @Sendable (_ address: BindAddress, _ onRunning: @escaping @Sendable (any Channel) async -> Void) throws -> any Service
    ) async throws -> Int {
        let (bound, resolve) = AsyncStream<Int>.makeStream()
        let app = try make(.hostname("127.0.0.1", port: port)) { channel in
            resolve.yield(channel.localAddress?.port ?? 0)
            resolve.finish()
        }
        var logger = Logger(label: "loopback-double")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], logger: logger))
        let task = Task {
            defer { resolve.finish() }
            try await group.run()
        }
        var listening = 0
        for await p in bound { listening = p }
        guard listening > 0 else {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            throw CancellationError()
        }
        running.withLock { $0 = (group, task, listening) }
        return listening
    }

    /// The port, 0 when stopped.
    var port: Int { running.withLock { $0?.port ?? 0 } }

    /// Stops the application gracefully and waits until it has closed.
    func stop() async {
        guard let (group, task, _) = running.withLock({ running -> (ServiceGroup, Task<Void, any Error>, Int)? in
            defer { running = nil }
            return running
        }) else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// A stand-in for APNs on loopback: HTTP/2 over TLS with a certificate from a ``TestCertificateAuthority``,
/// `POST /3/device/<token>`. It checks each request as APNs does (the ES256 provider token's signature, key
/// id, team and age; the `apns-topic`; the JSON payload) and answers with APNs's statuses and reasons.
/// Tokens a test marks as unregistered or bad get 410 `Unregistered` or 400 `BadDeviceToken`; scripted
/// answers (429, 503, …) go to the next requests.
public final class APNsDouble: Sendable {
    private struct State {
        var topics: Set<String>
        var unregistered: Set<String> = []
        var bad: Set<String> = []
        var script: [ScriptedPushAnswer] = []
        var received: [ReceivedPush] = []
        var providerTokens: [String] = []
        var requests = 0
        var now: Int64?
    }

    /// The TLS authority whose root clients must trust.
    public let authority: TestCertificateAuthority
    /// The team id provider tokens must be issued by.
    public let teamID: String
    /// The key id they must name.
    public let keyID: String
    private let publicKey: [UInt8]
    private let state: Mutex<State>
    private let app = LoopbackApplication()

    /// A double that accepts provider tokens signed by `key` for `keyID` and `teamID`, for the topics `topics`
    /// (bundle ids, with their `.voip`-style suffixes where needed).
    public init(teamID: String, keyID: String, key: P256.Signing.PublicKey, topics: Set<String>) throws {
        authority = try TestCertificateAuthority()
        self.teamID = teamID
        self.keyID = keyID
        publicKey = Array(key.rawRepresentation)
        state = Mutex(State(topics: topics))
    }

    /// Starts listening (`port` 0: a free one; the port of an earlier run to come back after an outage).
    @discardableResult
    public func start(port: Int = 0) async throws -> Int {
        let tls = authority.serverConfiguration
        return try await app.start(port: port) { [self] address, onRunning in
            let router = Router()
            router.post("/3/device/{token}") { request, context in
                let body = try await request.body.collect(upTo: 64 * 1024)
                return self.answer(token: context.parameters.get("token") ?? "", headers: request.headers, body: Array(buffer: body))
            }
            var logger = Logger(label: "apns-double")
            logger.logLevel = .critical
            // A stopped double closes its connections within a second, as a server that goes down would.
            let http2 = HTTP2ChannelConfiguration(idleTimeout: .seconds(60), gracefulCloseTimeout: .seconds(1))
            return Application(
                router: router, server: try .http2Upgrade(tlsConfiguration: tls, configuration: http2), configuration: .init(address: address),
                onServerRunning: onRunning, logger: logger)
        }
    }

    /// Stops listening and closes the connections (an outage, for a client).
    public func stop() async { await app.stop() }

    /// `https://127.0.0.1:<port>`.
    public var baseURL: String { "https://127.0.0.1:\(app.port)" }

    /// Makes `token` answer 410 `Unregistered` (the app was removed from the device).
    public func unregister(_ token: String) { state.withLock { _ = $0.unregistered.insert(token) } }

    /// Makes `token` answer 400 `BadDeviceToken`.
    public func markBad(_ token: String) { state.withLock { _ = $0.bad.insert(token) } }

    /// The next requests get these answers, in order, whatever they carry.
    public func script(_ answers: [ScriptedPushAnswer]) { state.withLock { $0.script += answers } }

    /// The double's clock for provider token ages (seconds since 1970); nil = the real time.
    public func setNow(_ now: Int64?) { state.withLock { $0.now = now } }

    /// Notifications accepted, in order.
    public var received: [ReceivedPush] { state.withLock { $0.received } }

    /// Every different provider token that came with a request, in the order first seen.
    public var providerTokens: [String] { state.withLock { $0.providerTokens } }

    /// Requests answered, accepted or not.
    public var requests: Int { state.withLock { $0.requests } }

    private func answer(token: String, headers: HTTPFields, body: [UInt8]) -> Response {
        let fields = Dictionary(headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { $1 })
        return state.withLock { state -> Response in
            state.requests += 1
            if !state.script.isEmpty {
                let scripted = state.script.removeFirst()
                return Self.reply(scripted.status, scripted.reason, retryAfter: scripted.retryAfter)
            }
            let bearer = fields["authorization"].flatMap { $0.hasPrefix("bearer ") ? String($0.dropFirst(7)) : nil }
            guard let bearer else { return Self.reply(403, "MissingProviderToken") }
            if !state.providerTokens.contains(bearer) { state.providerTokens.append(bearer) }
            switch checkProviderToken(bearer, now: state.now ?? Int64(Date().timeIntervalSince1970)) {
            case .some(let reason): return Self.reply(403, reason)
            case .none: break
            }
            guard let topic = fields["apns-topic"] else { return Self.reply(400, "MissingTopic") }
            guard state.topics.contains(topic) else { return Self.reply(400, "TopicDisallowed") }
            guard let type = fields["apns-push-type"], Self.pushTypes.contains(type) else { return Self.reply(400, "InvalidPushType") }
            if let priority = fields["apns-priority"], !["1", "5", "10"].contains(priority) { return Self.reply(400, "BadPriority") }
            if body.isEmpty { return Self.reply(400, "PayloadEmpty") }
            if body.count > (type == "voip" ? 5120 : 4096) { return Self.reply(413, "PayloadTooLarge") }
            guard let payload = try? JSONValue.parse(body), payload["aps"] != nil else { return Self.reply(400, "BadPayload") }
            if state.bad.contains(token) || token.isEmpty { return Self.reply(400, "BadDeviceToken") }
            if state.unregistered.contains(token) { return Self.reply(410, "Unregistered") }
            state.received.append(ReceivedPush(token: token, headers: fields, payload: payload))
            var response = Response(status: .ok)
            response.headers[HTTPField.Name("apns-id")!] = UUID().uuidString
            return response
        }
    }

    private static let pushTypes: Set<String> = ["alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity", "location", "pushtotalk"]

    /// nil when `token` is a provider token APNs would take at `now`, else the reason it refuses it.
    private func checkProviderToken(_ token: String, now: Int64) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(claimsBytes),
            header["alg"]?.stringValue == "ES256", let key = try? P256.Signing.PublicKey(rawRepresentation: publicKey),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Array("\(parts[0]).\(parts[1])".utf8))
        else { return "InvalidProviderToken" }
        guard header["kid"]?.stringValue == keyID, claims["iss"]?.stringValue == teamID else { return "InvalidProviderToken" }
        guard case .int(let issued)? = claims["iat"] else { return "InvalidProviderToken" }
        if now - issued > 3600 { return "ExpiredProviderToken" }
        return nil
    }

    private static func reply(_ status: Int, _ reason: String, retryAfter: Int? = nil) -> Response {
        var response = Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONValue.object([JSONMember("reason", .string(reason))]).jsonBytes)))
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

/// A stand-in for FCM HTTP v1 and Google's OAuth token endpoint on loopback (plain HTTP):
/// `POST /token` exchanges a service account's RS256 assertion (checked against the account's public key,
/// issuer, audience, scope and expiry) for an access token, and `POST /v1/projects/<project>/messages:send`
/// takes a message with a live access token. Tokens a test marks get FCM's `UNREGISTERED` or
/// `INVALID_ARGUMENT` answers; scripted answers (429, 503, …) go to the next sends.
public final class FCMDouble: Sendable {
    private struct State {
        var unregistered: Set<String> = []
        var invalid: Set<String> = []
        var script: [ScriptedPushAnswer] = []
        var received: [ReceivedPush] = []
        var issued: [String] = []
        var revoked: Set<String> = []
        var sends = 0
    }

    /// The project messages must be sent to.
    public let projectID: String
    /// The service account's email: the assertion's issuer.
    public let clientEmail: String
    private let publicKeyDER: [UInt8]
    private let state = Mutex(State())
    private let app = LoopbackApplication()

    /// A double for `projectID`, taking assertions signed by `key` and issued by `clientEmail`.
    public init(projectID: String, clientEmail: String, key: _RSA.Signing.PublicKey) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        publicKeyDER = Array(key.derRepresentation)
    }

    /// Starts listening (`port` 0: a free one).
    @discardableResult
    public func start(port: Int = 0) async throws -> Int {
        try await app.start(port: port) { [self] address, onRunning in
            let router = Router()
            router.post("/token") { request, _ in
                let body = try await request.body.collect(upTo: 64 * 1024)
                return self.token(form: String(buffer: body))
            }
            router.post("/v1/projects/{project}/messages:send") { request, context in
                let body = try await request.body.collect(upTo: 256 * 1024)
                return self.send(project: context.parameters.get("project") ?? "", authorization: request.headers[.authorization], body: Array(buffer: body))
            }
            var logger = Logger(label: "fcm-double")
            logger.logLevel = .critical
            return Application(router: router, configuration: .init(address: address), onServerRunning: onRunning, logger: logger)
        }
    }

    /// Stops listening.
    public func stop() async { await app.stop() }

    /// `http://127.0.0.1:<port>`: FCM's base URL.
    public var baseURL: String { "http://127.0.0.1:\(app.port)" }

    /// The token endpoint, for the service account's `token_uri`.
    public var tokenURI: String { baseURL + "/token" }

    /// Makes `token` answer 404 `UNREGISTERED`.
    public func unregister(_ token: String) { state.withLock { _ = $0.unregistered.insert(token) } }

    /// Makes `token` answer 400 `INVALID_ARGUMENT` (not a valid registration token).
    public func markInvalid(_ token: String) { state.withLock { _ = $0.invalid.insert(token) } }

    /// The next sends get these answers, in order.
    public func script(_ answers: [ScriptedPushAnswer]) { state.withLock { $0.script += answers } }

    /// Every access token issued so far stops working (401), as when Google revokes them.
    public func revokeAccessTokens() { state.withLock { $0.revoked.formUnion($0.issued) } }

    /// Messages accepted, in order.
    public var received: [ReceivedPush] { state.withLock { $0.received } }

    /// Access tokens issued, in order.
    public var issuedTokens: [String] { state.withLock { $0.issued } }

    /// Sends answered, accepted or not.
    public var sends: Int { state.withLock { $0.sends } }

    private func token(form: String) -> Response {
        let fields = parseFormBody(form)
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"] else {
            return Self.json(400, #"{"error":"unsupported_grant_type"}"#)
        }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let claimsBytes = Base64URL.decode(parts[1]), let claims = try? JSONValue.parse(claimsBytes),
            let signature = Base64URL.decode(parts[2]), let key = try? _RSA.Signing.PublicKey(derRepresentation: publicKeyDER),
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: Array("\(parts[0]).\(parts[1])".utf8)),
                padding: .insecurePKCS1v1_5)
        else { return Self.json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#) }
        guard claims["iss"]?.stringValue == clientEmail, claims["aud"]?.stringValue == tokenURI,
            claims["scope"]?.stringValue == "https://www.googleapis.com/auth/firebase.messaging",
            case .int(let expires)? = claims["exp"], expires > Int64(Date().timeIntervalSince1970)
        else { return Self.json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT claims."}"#) }
        let token = state.withLock { state -> String in
            let token = "ya29.double-\(state.issued.count + 1)"
            state.issued.append(token)
            return token
        }
        return Self.json(200, #"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    private func send(project: String, authorization: String?, body: [UInt8]) -> Response {
        state.withLock { state -> Response in
            state.sends += 1
            if !state.script.isEmpty {
                let scripted = state.script.removeFirst()
                var response = Self.error(scripted.status, scripted.reason, fcmCode: scripted.reason)
                if let after = scripted.retryAfter { response.headers[.retryAfter] = String(after) }
                return response
            }
            guard let authorization, authorization.hasPrefix("Bearer "), case let token = String(authorization.dropFirst(7)),
                state.issued.contains(token), !state.revoked.contains(token)
            else { return Self.error(401, "UNAUTHENTICATED", message: "Request had invalid authentication credentials.") }
            guard project == projectID else { return Self.error(403, "PERMISSION_DENIED", message: "wrong project") }
            guard let json = try? JSONValue.parse(body), let message = json["message"] else {
                return Self.error(400, "INVALID_ARGUMENT", message: "Invalid JSON payload received.")
            }
            let target = message["token"]?.stringValue ?? message["topic"]?.stringValue.map { "/topics/" + $0 } ?? ""
            if target.isEmpty { return Self.error(400, "INVALID_ARGUMENT", message: "Recipient of the message is not set.") }
            if state.invalid.contains(target) {
                return Self.error(400, "INVALID_ARGUMENT", fcmCode: "INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token")
            }
            if state.unregistered.contains(target) {
                return Self.error(404, "NOT_FOUND", fcmCode: "UNREGISTERED", message: "Requested entity was not found.")
            }
            state.received.append(ReceivedPush(token: target, headers: ["authorization": authorization], payload: message))
            return Self.json(200, #"{"name":"projects/\#(projectID)/messages/\#(state.received.count)"}"#)
        }
    }

    private static func error(_ status: Int, _ state: String, fcmCode: String? = nil, message: String = "error") -> Response {
        let details = fcmCode.map { #"[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"# } ?? "[]"
        return json(status, #"{"error":{"code":\#(status),"message":"\#(message)","status":"\#(state)","details":\#(details)}}"#)
    }

    private static func json(_ status: Int, _ text: String) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension APNsDouble {
    /// A started double for `bundleID` with a new key, and the `hearth serve` flags that point a server at it: the
    /// key (`.p8`) and the authority's root are written into `folder`, which must exist.
    public static func forServer(bundleID: String, folder: String) async throws -> (double: APNsDouble, arguments: [String]) {
        let key = P256.Signing.PrivateKey()
        let double = try APNsDouble(teamID: "TEAM123456", keyID: "KEY1234567", key: key.publicKey, topics: [bundleID])
        try await double.start()
        try key.pemRepresentation.write(toFile: folder + "/apns.p8", atomically: true, encoding: .utf8)
        try double.authority.rootPEM.write(toFile: folder + "/push-ca.pem", atomically: true, encoding: .utf8)
        return (double, [
            "--apns-key", folder + "/apns.p8", "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456",
            "--apns-bundle-id", bundleID, "--apns-url", double.baseURL, "--push-ca-file", folder + "/push-ca.pem",
        ])
    }
}
