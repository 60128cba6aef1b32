import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthDatabase
import HearthStore
import HearthWire
import Hummingbird
import Logging
import NIOCore

/// Who is asking.
enum Identity: Sendable {
    case admin
    case anonymous
    /// A bearer token that is not the admin credential (verified by the auth product later).
    case token(String)
}

/// Everything parsed from one REST request before it is dispatched.
struct RestCall: Sendable {
    var method: HTTPRequest.Method
    var path: Path
    /// True when the last raw segment was `.priority`.
    var isPriority: Bool
    var parameters: [String: String]
    var namespace: Namespace
    var identity: Identity
    /// Who the rules see (admin = bypass).
    var access: Access
    var pretty: Bool
    var silent: Bool
}

/// Serves the Realtime Database REST and streaming API (`/<path>.json`).
struct DatabaseController: Sendable {
    let configuration: ServerConfiguration
    /// The database itself; this controller maps its results and errors to REST.
    let service: DatabaseService
    let logger: Logger
    /// Verifies ID tokens Hearth signed (nil: only `--dev` unsigned tokens are understood).
    let auth: AuthService?
    /// Credentials → caller, shared with the other products.
    let authenticator: Authenticator

    var registry: NamespaceRegistry { service.registry }

    init(
        configuration: ServerConfiguration, registry: NamespaceRegistry, logger: Logger, auth: AuthService?,
        authenticator: Authenticator? = nil, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.configuration = configuration
        self.service = DatabaseService(registry: registry, indexPolicy: configuration.indexPolicy, logger: logger, clock: clock)
        self.logger = logger
        self.auth = auth
        self.authenticator = authenticator ?? Authenticator(configuration, verifier: auth)
    }

    func respond(to request: Request, channel: (any Channel)?) async -> Response {
        let parameters = parseQueryString(request.uri.query)
        let pretty = parameters["print"] == "pretty"
        do {
            return try await handle(request, parameters: parameters, channel: channel)
        } catch {
            return errorReply(error, pretty: pretty).response
        }
    }

    /// The answer to a request that failed: a `RestError` (or a database error, mapped to one) as
    /// Firebase words it, anything else a logged 500.
    func errorReply(_ error: any Error, pretty: Bool) -> InlineReply {
        if let e = error as? RestError { return Responses.errorReply(e, pretty: pretty, diagnostics: configuration.dev) }
        if let e = error as? DatabaseError { return Responses.errorReply(RestError(e), pretty: pretty, diagnostics: configuration.dev) }
        if let e = error as? StoreFullError {
            logger.error("write refused: the disk is full", metadata: ["hearth.error": "\(e.detail)"])
            return Responses.errorReply(RestError(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), e.description), pretty: pretty)
        }
        logger.error("request failed", metadata: ["hearth.error": "\(error)"])
        return Responses.errorReply(RestError(.internalServerError, "Internal error"), pretty: pretty)
    }

    private func handle(_ request: Request, parameters: [String: String], channel: (any Channel)?) async throws -> Response {
        if request.method == .options {
            var h = HTTPFields()
            h[.accessControlAllowOrigin] = "*"
            h[.accessControlAllowMethods] = "GET, PUT, POST, PATCH, DELETE, OPTIONS"
            // Browsers do not let `*` cover Authorization: name what the preflight asked for.
            h[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "*"
            return Response(status: .ok, headers: h)
        }
        let target: RestTarget
        switch try self.target(request.head, path: request.uri.path, parameters: parameters) {
        case .settings(let name, let segments, let identity):
            // Admin only, and checked before the namespace is looked up: nobody else learns which exist.
            guard case .admin = identity else { throw RestError.permissionDenied }
            if segments.first == "namespaces" { return try await namespaces(request, segments: segments.dropFirst(), parameters: parameters) }
            let lease = try await lease(name)
            defer { registry.release(lease) }
            return try await settings(request, segments: segments, identity: identity, namespace: lease.namespace, parameters: parameters)
        case .inspect:
            let names = registry.names
            return Responses.json(JSONValue.array(names.map { .object([JSONMember("name", .string($0))]) }).jsonBytes)
        case .rest(let rest):
            target = rest
        }
        let lease = try await lease(target.namespaceName)
        defer { registry.release(lease) }
        let call = try self.call(target, namespace: lease.namespace, parameters: parameters)
        let method = target.method
        if target.isPriority {
            // `.priority` names a node's priority: it can be read, replaced (PUT) and cleared (DELETE),
            // but it has no children to push to or merge into, and no stream of its own.
            let streaming = request.headers[.accept]?.contains("text/event-stream") == true
            switch method {
            case .get where !streaming, .head: return try await priority(call)
            case .put, .delete: break
            default: throw RestError.badRequest(ErrorMessage.priorityPath)
            }
        }
        switch method {
        case .get:
            if let accept = request.headers[.accept], accept.contains("text/event-stream") {
                return try await stream(call, channel: channel)
            }
            return try await get(call, request: request)
        case .head:
            return try await get(call, request: request)
        case .put: return try await put(call, request: request)
        case .post: return try await post(call, request: request)
        case .patch: return try await patch(call, request: request)
        case .delete: return try await delete(call, request: request)
        default: throw RestError(.methodNotAllowed, "Method not allowed")
        }
    }

    /// What a REST request names, parsed before its namespace is opened.
    enum Target {
        /// `/.settings/…`: the rules and other settings documents.
        case settings(namespace: String, segments: [Substring], identity: Identity)
        /// `/.inspect/databases` (admin only).
        case inspect
        case rest(RestTarget)
    }

    struct RestTarget {
        /// The method after `X-HTTP-Method-Override`.
        var method: HTTPRequest.Method
        var path: Path
        var isPriority: Bool
        var namespaceName: String
        var identity: Identity
        var authOverride: JSONValue?
    }

    /// Parses the method, location, namespace and credential of a REST request; throws the 4xx
    /// Firebase answers for a malformed one.
    func target(_ head: HTTPRequest, path uriPath: String, parameters: [String: String]) throws -> Target {
        var rawPath = Substring(uriPath)
        guard rawPath.hasUTF8Suffix(".json") else {
            throw RestError(.notFound, "Not found: Realtime Database paths end in .json")
        }
        rawPath = rawPath.dropLast(5)
        var method = head.method
        if method == .post {
            let override = head.headerFields[.methodOverride] ?? parameters["x-http-method-override"]
            if let override {
                switch override.uppercased() {
                case "PUT": method = .put
                case "PATCH": method = .patch
                case "DELETE": method = .delete
                case "GET": method = .get
                default: throw RestError.badRequest("Invalid X-HTTP-Method-Override value")
                }
            }
        }
        let nsName = parameters["ns"] ?? configuration.defaultNamespace
        guard NamespaceRegistry.isValid(nsName) else { throw RestError(.notFound, "Invalid namespace name") }
        let identity = identify(head.headerFields, parameters: parameters)
        var authOverride: JSONValue?
        if case .admin = identity, let text = parameters["auth_variable_override"] {
            switch try? JSONValue.parse(text) {
            case let json? where json == .null: authOverride = json
            case let .object(members)?: authOverride = .object(members)
            default: throw RestError.badRequest("auth_variable_override must be a JSON object or null")
            }
        }
        // Special locations.
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: true)
        if segments.first == ".settings" {
            return .settings(namespace: nsName, segments: Array(segments.dropFirst()), identity: identity)
        }
        if segments.first == ".inspect", segments.dropFirst().first == "databases" {
            guard case .admin = identity else { throw RestError.permissionDenied }
            return .inspect
        }
        if segments.first == ".info" {
            if method != .get { throw RestError.badRequest("Invalid path: .info is read-only") }
        }
        var isPriority = false
        if segments.last == ".priority" {
            isPriority = true
            while rawPath.hasSuffix("/") { rawPath = rawPath.dropLast() }
            rawPath = rawPath.dropLast(".priority".count)
        }
        let path: Path
        do {
            path = try Path.validated(rawURLPath: rawPath)
        } catch {
            throw RestError.badRequest(error.message)
        }
        return .rest(
            RestTarget(method: method, path: path, isPriority: isPriority, namespaceName: nsName, identity: identity, authOverride: authOverride))
    }

    /// The request in its namespace, with the caller resolved into rules access (401 for a token
    /// that does not verify).
    func call(_ target: RestTarget, namespace: Namespace, parameters: [String: String]) throws -> RestCall {
        RestCall(
            method: target.method, path: target.path, isPriority: target.isPriority, parameters: parameters,
            namespace: namespace, identity: target.identity, access: try access(target.identity, override: target.authOverride),
            pretty: parameters["print"] == "pretty", silent: parameters["print"] == "silent")
    }

    /// Holds the namespace `name` for a request (release it when the answer is built); an unknown
    /// one is 404 with Firebase's words, all open ones busy 503.
    func lease(_ name: String, onDelete: (@Sendable () -> Void)? = nil) async throws(RestError) -> NamespaceLease {
        do {
            return try await service.lease(name, onDelete: onDelete)
        } catch {
            throw RestError(error)
        }
    }

    private func identify(_ headers: HTTPFields, parameters: [String: String]) -> Identity {
        var token: String?
        if let header = headers[.authorization], header.utf8.count > 7 {
            let scheme = header.utf8.prefix(7)
            if scheme.elementsEqual("Bearer ".utf8) || scheme.elementsEqual("bearer ".utf8) {
                token = String(header.dropFirst(7))
            }
        }
        token = token ?? parameters["access_token"] ?? parameters["auth"]
        guard let token, !token.isEmpty else { return .anonymous }
        return authenticator.isAdmin(token) ? .admin : .token(token)
    }

    /// Reads and parses the JSON request body (bounded).
    func body(_ request: Request) async throws -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
        } catch {
            throw RestError.badRequest("Data too large; the request body is over \(configuration.maxBodyBytes) bytes")
        }
        guard buffer.readableBytes > 0 else { throw RestError.badRequest(ErrorMessage.noData) }
        do {
            return try buffer.withUnsafeReadableBytes { raw in try JSONReader(maxDepth: 64).parse(raw) }
        } catch {
            throw RestError.badRequest(ErrorMessage.invalidJSON)
        }
    }

    func render(_ call: RestCall, _ bytes: [UInt8], headers: HTTPFields = [:]) -> Response {
        if call.silent { return Responses.noContent(headers: headers) }
        if call.pretty, let v = try? JSONValue.parse(bytes) {
            var w = JSONWriter(pretty: true)
            w.write(v)
            return Responses.json(w.bytes, headers: headers)
        }
        return Responses.json(bytes, headers: headers)
    }
}
