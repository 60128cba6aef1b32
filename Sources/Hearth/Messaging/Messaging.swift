#if canImport(FoundationNetworking)
import Foundation
/// Public: URLSession, which the initializer takes, lives here on Linux.
public import FoundationNetworking
#else
/// Public: URLSession and Data appear in the API.
public import Foundation
#endif
import HearthCore
import Synchronization

/// Push notifications for this device: registers its APNs (or FCM) token with the server for the signed-in
/// user, and its topics. The server sends; this only tells it where.
///
/// ```swift
/// // In application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
/// try await app.messaging.register(apnsToken: deviceToken)
/// try await app.messaging.subscribe(toTopic: "campaigns-berlin")
/// ```
///
/// The registration follows the session: when the user signs out, the device is unregistered (with the ID token
/// the session had, so nothing else is needed), and when someone signs in again the token is registered for them.
public final class Messaging: Sendable {
    /// A refusal or failure of the server; `message` is the server's.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The HTTP status (0: the server could not be reached).
        public var status: Int
        /// What went wrong.
        public var message: String
        /// `HTTP <status>: <message>`.
        public var description: String { "HTTP \(status): \(message)" }
    }

    /// The token registered, its service and environment.
    struct Registration: Sendable, Equatable {
        var token: String
        var service: String
        var sandbox: Bool
    }

    /// Where the server is.
    public let options: HearthOptions
    let auth: Auth
    let session: URLSession
    private let registration = Mutex<Registration?>(nil)
    private let relay = Mutex<Task<Void, Never>?>(nil)

    /// Messaging for the user of `auth` (``HearthApp/messaging`` is the app's).
    public init(options: HearthOptions, auth: Auth, session: URLSession = .shared) {
        self.options = options
        self.auth = auth
        self.session = session
        relay.withLock { $0 = Task { [weak self] in await self?.followSession() } }
    }

    deinit { relay.withLock { $0?.cancel() } }

    /// The token registered last (hex for APNs), nil before ``register(apnsToken:sandbox:)``.
    public var token: String? { registration.withLock { $0?.token } }

    /// Registers this device's APNs token (the `deviceToken` bytes iOS gives the app delegate) for the signed-in
    /// user. `sandbox`: the app runs from Xcode (a development build), whose tokens only APNs's sandbox knows.
    public func register(apnsToken: Data, sandbox: Bool = false) async throws {
        let hex = apnsToken.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        try await register(Registration(token: hex, service: "APNS", sandbox: sandbox))
    }

    /// Registers an FCM registration token (from the Firebase Messaging SDK) for the signed-in user.
    public func register(fcmToken: String) async throws {
        try await register(Registration(token: fcmToken, service: "FCM", sandbox: false))
    }

    private func register(_ device: Registration) async throws {
        registration.withLock { $0 = device }
        guard let idToken = try await auth.idToken() else { return }  // registered at the next sign-in
        try await send(device, idToken: idToken)
    }

    private func send(_ device: Registration, idToken: String) async throws {
        let body = JSONValue.object([
            JSONMember("token", .string(device.token)), JSONMember("service", .string(device.service)), JSONMember("sandbox", .bool(device.sandbox)),
        ])
        _ = try await request("POST", "devices", body: body, idToken: idToken)
    }

    /// Removes this device's registration (it gets no more notifications for the signed-in user).
    public func unregister() async throws {
        guard let token = registration.withLock({ $0?.token }), let idToken = try await auth.idToken() else { return }
        _ = try await request("DELETE", "devices/\(Self.segment(token))", idToken: idToken)
    }

    /// Subscribes this device to `topic` (letters, digits and `-_.~%`); register the device first.
    public func subscribe(toTopic topic: String) async throws { try await setTopic(topic, subscribed: true) }

    /// Unsubscribes this device from `topic`.
    public func unsubscribe(fromTopic topic: String) async throws { try await setTopic(topic, subscribed: false) }

    private func setTopic(_ topic: String, subscribed: Bool) async throws {
        guard let token = registration.withLock({ $0?.token }) else {
            throw Failure(status: 0, message: "Register the device (register(apnsToken:)) before subscribing it to topics")
        }
        guard let idToken = try await auth.idToken() else { throw Failure(status: 401, message: "No user is signed in") }
        _ = try await request(subscribed ? "PUT" : "DELETE", "devices/\(Self.segment(token))/topics/\(Self.segment(topic))", idToken: idToken)
    }

    /// Follows the session: a sign-out unregisters the device with the last ID token the session had; a sign-in
    /// (also one that replaces another user's session) registers it for the new user.
    private func followSession() async {
        var last: (token: String, uid: String)?
        for await idToken in auth.tokenChanges {
            let uid = idToken == nil ? nil : auth.currentUser?.uid
            if let device = registration.withLock({ $0 }), uid != last?.uid {
                if let old = last, uid == nil {
                    _ = try? await request("DELETE", "devices/\(Self.segment(device.token))", idToken: old.token)
                } else if let idToken {
                    try? await send(device, idToken: idToken)
                }
            }
            last = idToken.flatMap { token in uid.map { (token, $0) } }
        }
    }

    private static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? text
    }

    private func request(_ method: String, _ path: String, body: JSONValue? = nil, idToken: String) async throws -> JSONValue? {
        guard let url = URL(string: "\(URLEncoding.base(options.serverURL))/.hearth/messaging/\(path)") else {
            throw Failure(status: 0, message: "Invalid path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(idToken)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.jsonBytes)
        }
        let data: Data
        let status: Int
        do {
            let (bytes, response) = try await session.data(for: request)
            data = bytes
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            throw Failure(status: 0, message: "The server could not be reached: \(error.localizedDescription)")
        }
        let json = try? JSONValue.parse(Array(data))
        guard status == 200 else { throw Failure(status: status, message: json?["error"]?.stringValue ?? "HTTP \(status)") }
        return json
    }
}
