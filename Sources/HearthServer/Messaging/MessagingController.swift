import HTTPTypes
import HearthCore
import HearthFunctions
import HearthMessaging
import HearthStore
import Hummingbird
import NIOCore

/// Push notifications over HTTP, under `/.hearth/messaging/` (no Firebase API covers registering a device
/// with your own backend; docs/push.md lists these):
///
/// - a signed-in user (`Authorization: Bearer <ID token>`) registers, lists and removes their own devices and
///   their topics: `POST devices` (`{"token", "service": "APNS"|"FCM", "sandbox"}`), `GET devices`,
///   `DELETE devices/{token}`, `PUT`/`DELETE devices/{token}/topics/{topic}`; another user's token is a 404;
/// - the admin sends: `POST send` (`{"target": {"user"|"token"|"topic": …}, "notification": {…}}`) answers
///   what each device's provider said; with `"queue": true` it queues the push in the default database's outbox
///   instead (durable, retried) and answers 202.
struct MessagingController: Sendable {
    let service: MessagingService
    let functions: FunctionsRuntime?
    let database: DatabaseController
    let authenticator: Authenticator

    static let prefix = "/.hearth/messaging/"
    static let maxBodyBytes = 64 * 1024

    static func handles(_ path: String) -> Bool { path.hasPrefix(prefix) }

    func respond(to request: Request) async -> Response {
        let rest = request.uri.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false).map {
            decodeFormComponent($0)
        }
        do {
            switch (request.method, rest.first ?? "", rest.count) {
            case (.post, "send", 1): return try await send(request)
            case (.post, "devices", 1): return try await register(request)
            case (.get, "devices", 1): return try await list(request)
            case (.delete, "devices", 2): return try await unregister(request, token: rest[1])
            case (.put, "devices", 4) where rest[2] == "topics", (.delete, "devices", 4) where rest[2] == "topics":
                return try await topic(request, token: rest[1], topic: rest[3], subscribed: request.method == .put)
            default:
                return ConsoleController.error(.notFound, "No messaging endpoint \(request.method) \(request.uri.path)")
            }
        } catch let error as PushError {
            return ConsoleController.error(.badRequest, error.message)
        } catch let error as AdminError {
            return ConsoleController.error(error.status, error.message)
        } catch {
            return ConsoleController.error(.internalServerError, "Internal error")
        }
    }

    /// The signed-in user's uid; throws 401 without a valid ID token.
    private func uid(_ request: Request) throws -> String {
        guard let token = request.authorizationToken(schemes: ["bearer", "firebase"]), let auth = try? authenticator.user(token),
            let uid = auth["uid"]?.stringValue, !uid.isEmpty
        else { throw AdminError(.unauthorized, "Registering a device needs a signed-in user: send Authorization: Bearer <ID token>") }
        return uid
    }

    private func body(_ request: Request) async throws -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch {
            throw AdminError(.contentTooLarge, "Request body larger than \(Self.maxBodyBytes) bytes")
        }
        guard let json = try? JSONValue.parse(Array(buffer: buffer)), case .object = json else {
            throw AdminError.badRequest("The body must be a JSON object")
        }
        return json
    }

    private func register(_ request: Request) async throws -> Response {
        let uid = try uid(request)
        let json = try await body(request)
        guard let token = json["token"]?.stringValue else { throw AdminError.badRequest("\"token\" (the device token) is required") }
        guard let kind = json["service"]?.stringValue.flatMap({ PushService(rawValue: $0.uppercased()) }) else {
            throw AdminError.badRequest("\"service\" must be \"APNS\" or \"FCM\"")
        }
        var sandbox = false
        if let value = json["sandbox"] {
            guard case .bool(let b) = value else { throw AdminError.badRequest("\"sandbox\" must be true or false") }
            sandbox = b
        }
        try await service.register(uid: uid, token: token, service: kind, sandbox: sandbox)
        return ConsoleController.json(.object([]))
    }

    private func list(_ request: Request) async throws -> Response {
        let uid = try uid(request)
        let devices = try await service.devices.devices(uid: uid)
        return ConsoleController.json(.object([JSONMember("devices", .array(devices.map(Self.json)))]))
    }

    static func json(_ d: DeviceRegistration) -> JSONValue {
        .object([
            JSONMember("token", .string(d.token)), JSONMember("service", .string(d.service.rawValue)), JSONMember("sandbox", .bool(d.sandbox)),
            JSONMember("topics", .array(d.topics.map(JSONValue.string))), JSONMember("updated", .int(d.updated)),
        ])
    }

    private func unregister(_ request: Request, token: String) async throws -> Response {
        if authenticator.isAdmin(request.authorizationToken()) {
            guard try await service.devices.remove(token: token) else { throw AdminError(.notFound, "No device with this token") }
            return ConsoleController.json(.object([]))
        }
        guard try await service.unregister(uid: try uid(request), token: token) else { throw AdminError(.notFound, "No such device of yours") }
        return ConsoleController.json(.object([]))
    }

    private func topic(_ request: Request, token: String, topic: String, subscribed: Bool) async throws -> Response {
        let uid = try uid(request)
        guard try await service.devices.device(token: token)?.uid == uid else { throw AdminError(.notFound, "No such device of yours") }
        try await service.setTopic(topic, subscribed: subscribed, uid: uid, token: token)
        return ConsoleController.json(.object([]))
    }

    private func send(_ request: Request) async throws -> Response {
        guard authenticator.isAdmin(request.authorizationToken()) else { throw AdminError(.unauthorized, "Admin credential required.") }
        let json = try await body(request)
        guard let target = json["target"], let notification = json["notification"] else {
            throw AdminError.badRequest("The body needs \"target\" and \"notification\"")
        }
        let push = try PushNotification(json: notification)
        let to = try PushTarget(json: target)
        if json["queue"] == .bool(true) {
            guard let functions else { throw AdminError(.serviceUnavailable, "Queued pushes need the functions runtime") }
            try await functions.queue(push, to: to, database: database.service)
            return ConsoleController.json(.object([JSONMember("queued", .bool(true))]), status: .accepted)
        }
        let report = try await service.send(push, to: to)
        func failures(_ list: [PushReport.Failure]) -> JSONValue {
            .array(list.map { f in
                var m = [JSONMember("token", .string(f.token)), JSONMember("reason", .string(f.reason))]
                if let after = f.retryAfter { m.append(JSONMember("retryAfter", .double(after))) }
                return .object(m)
            })
        }
        return ConsoleController.json(.object([
            JSONMember("devices", .int(Int64(report.devices))), JSONMember("delivered", .int(Int64(report.delivered))),
            JSONMember("removed", .array(report.removed.map(JSONValue.string))), JSONMember("retryable", failures(report.retryable)),
            JSONMember("rejected", failures(report.rejected)),
        ]))
    }
}
