import HTTPTypes
import HearthAuth
import HearthCore
import HearthStore
import HearthWire
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Serves Identity Toolkit (`/identitytoolkit.googleapis.com/v1/…`), its legacy v3 aliases and
/// Secure Token (`/securetoken.googleapis.com/v1/token`) on the server's port, as the Firebase
/// Auth emulator does.
struct AuthController: Sendable {
    let service: AuthService
    let configuration: ServerConfiguration
    let logger: Logger
    /// Served here for session cookies and by the router at the ID-token key paths.
    let publicKeys: PublicKeyDocuments

    /// Credentials → caller, shared with the other products (here: who makes admin calls).
    let authenticator: Authenticator

    init(service: AuthService, configuration: ServerConfiguration, logger: Logger, authenticator: Authenticator? = nil) {
        self.service = service
        self.configuration = configuration
        self.logger = logger
        self.authenticator = authenticator ?? Authenticator(configuration, verifier: service)
        self.publicKeys = PublicKeyDocuments(keys: service.keys)
    }

    /// Where Google publishes the session-cookie keys (JWKS, and the x509 map at the v3 path).
    static let sessionCookieJWKSPath = "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys"
    static let sessionCookieCertificatesPath = "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys"

    static let prefixes = [
        "/identitytoolkit.googleapis.com/", "/securetoken.googleapis.com/", "/www.googleapis.com/identitytoolkit/v3/relyingparty/",
        "/emulator/v1/", "/emulator/action", ActionPage.path,
    ]

    static func handles(_ path: String) -> Bool { prefixes.contains { path.hasPrefix($0) } }

    static let v3Prefix = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"

    /// Legacy v3 names → v1 operations.
    static let v3Aliases: [String: String] = [
        "signupNewUser": "signUp", "verifyPassword": "signInWithPassword", "getAccountInfo": "lookup",
        "setAccountInfo": "update", "deleteAccount": "delete", "getOobConfirmationCode": "sendOobCode",
        "resetPassword": "resetPassword", "verifyCustomToken": "signInWithCustomToken", "emailLinkSignin": "signInWithEmailLink",
        "verifyPhoneNumber": "signInWithPhoneNumber", "sendVerificationCode": "sendVerificationCode", "createAuthUri": "createAuthUri",
        "verifyAssertion": "signInWithIdp", "downloadAccount": "batchGet", "uploadAccount": "batchCreate",
    ]

    /// Identity Toolkit account operations Firebase has and Hearth does not serve yet (501, not 404).
    static let unimplementedOperations: Set<String> = []

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// - Parameter peer: the socket peer's address; the client's is taken from `X-Forwarded-For` when the peer is
    ///   one of `configuration.trustedProxies`.
    func respond(to request: Request, clientAddress peer: String? = nil) async -> Response {
        if request.method == .options { return Self.preflight(request) }
        let clientAddress = configuration.trustedProxies.clientAddress(peer: peer, forwardedFor: request.headers[values: Self.forwardedFor])
        if request.uri.path == "/emulator/action" { return await action(request) }
        if request.uri.path == ActionPage.path { return await ActionPage(service: service, linkBase: linkBase(request)).respond(to: request) }
        if request.method == .get, [Self.sessionCookieJWKSPath, Self.sessionCookieCertificatesPath].contains(request.uri.path) {
            // Public documents, like the ID-token keys: no API key needed.
            do {
                let documents = try await publicKeys.responses()
                return request.uri.path == Self.sessionCookieJWKSPath ? documents.jwks : documents.certificates
            } catch {
                logger.error("the signing keys are unavailable", metadata: ["hearth.error": "\(error)"])
                return Self.error(status: 500, message: "Internal error", reason: "backendError", rpcStatus: "INTERNAL")
            }
        }
        do {
            return Self.json(try await handle(request, clientAddress: clientAddress))
        } catch let e as AuthError {
            return Self.error(status: Self.refusalStatus, message: e.message, reason: "invalid", rpcStatus: nil)
        } catch let e as PlatformError {
            return Self.error(status: e.status, message: e.message, reason: e.reason, rpcStatus: e.rpcStatus)
        } catch let e as StoreFullError {
            logger.error("auth write refused: the disk is full", metadata: ["hearth.error": "\(e.detail)"])
            return Self.error(status: 507, message: e.description, reason: "insufficientStorage", rpcStatus: "RESOURCE_EXHAUSTED")
        } catch {
            logger.error("auth request failed", metadata: ["hearth.error": "\(error)"])
            return Self.error(status: 500, message: "Internal error", reason: "backendError", rpcStatus: "INTERNAL")
        }
    }

    /// The status every ``AuthError`` (a refusal with Firebase's code) is answered with.
    static let refusalStatus = 400

    /// A typed Identity Toolkit answer as the JSON this controller writes.
    static func wire(_ answer: some Encodable) throws -> JSONValue { try JSONValueEncoder().encode(answer) }

    struct PlatformError: Error {
        var status: Int
        var message: String
        var reason: String
        var rpcStatus: String

        static let notFound = PlatformError(status: 404, message: "Not found", reason: "notFound", rpcStatus: "NOT_FOUND")
        static let missingKey = PlatformError(
            status: 403, message: "The request is missing a valid API key.", reason: "forbidden", rpcStatus: "PERMISSION_DENIED")
        static let unauthenticated = PlatformError(
            status: 401, message: "Request had invalid authentication credentials.", reason: "authError", rpcStatus: "UNAUTHENTICATED")
    }

    private func handle(_ request: Request, clientAddress: String?) async throws -> JSONValue {
        let path = request.uri.path
        let parameters = parseQueryString(request.uri.query)
        if let rest = path.dropPrefix("/emulator/v1/projects/") { return try await emulator(request, rest) }
        let privileged = try isPrivileged(request)
        if path == Self.tokenPath {
            try requireKey(request, parameters, privileged)
            let body = try await tokenBody(request)
            return try await SignInCounts.counting(.refresh) { try Self.wire(await service.refresh(Self.refreshRequest(body))) }
        }
        switch path {
        case "/identitytoolkit.googleapis.com/v1/projects", Self.v3Prefix + "getProjectConfig":
            guard request.method == .get else { throw PlatformError.notFound }
            try requireKey(request, parameters, privileged)
            return try Self.wire(service.projectConfig)
        case "/identitytoolkit.googleapis.com/v1/recaptchaParams", Self.v3Prefix + "getRecaptchaParam":
            guard request.method == .get else { throw PlatformError.notFound }
            try requireKey(request, parameters, privileged)
            return try Self.wire(service.recaptchaParams)
        default: break
        }
        let (operation, admin) = try accountOperation(path, privileged: privileged)
        if !admin { try requireKey(request, parameters, privileged) }
        if operation == "batchGet" {
            guard privileged else { throw PlatformError.unauthenticated }
            if path.hasPrefix(Self.v3Prefix) {
                // v3 `downloadAccount`: the page is asked for in the body.
                return try Self.wire(await service.downloadAccount(Self.decode(try await jsonBody(request))))
            }
            if let raw = parameters["maxResults"], Int(raw) == nil {
                throw AuthError("INVALID_ARGUMENT", "Invalid value at 'max_results' (TYPE_INT32), \"\(raw)\"")
            }
            return try Self.wire(
                await service.batchGet(maxResults: parameters["maxResults"].flatMap { Int($0) }, pageToken: parameters["nextPageToken"]))
        }
        guard request.method == .post else { throw PlatformError.notFound }
        let body = try await jsonBody(request)
        // Naming another project is for admin callers (admin SDKs' account download and upload
        // do it); a client holding only the public API key must stay in this server's project.
        if !privileged, [body["targetProjectId"], body["target_project_id"]].contains(where: { $0 != nil && $0 != .null }) {
            throw AuthError("INSUFFICIENT_PERMISSION", "Only authenticated requests can specify target_project_id.")
        }
        return try await SignInCounts.counting(SignInCounts.Method(operation: operation, body: body, privileged: privileged)) {
            try await perform(operation, body, request: request, privileged: privileged, clientAddress: clientAddress)
        }
    }

    /// The account operation a path names (`accounts:signUp`, v3's `signupNewUser`, an admin's
    /// `projects/P/accounts:lookup`), and whether the path is the admin form, which needs the admin
    /// credential instead of an API key.
    private func accountOperation(_ path: String, privileged: Bool) throws -> (operation: String, admin: Bool) {
        let operation: String
        var admin = false
        if let name = path.dropPrefix("/identitytoolkit.googleapis.com/v1/accounts:") {
            operation = String(name)
        } else if let name = path.dropPrefix(Self.v3Prefix) {
            guard let mapped = Self.v3Aliases[String(name)] else { throw PlatformError.notFound }
            operation = mapped
        } else if let rest = path.dropPrefix("/identitytoolkit.googleapis.com/v1/projects/") {
            // `projects/demo/accounts:lookup` or `projects/demo:createSessionCookie`.
            var parts = rest.split(separator: "/", maxSplits: 1)
            if parts.count == 1, let colon = rest.firstIndex(of: ":") {
                parts = [rest[..<colon], rest[colon...]]
            }
            guard parts.count == 2, parts[0] == service.projectID else { throw PlatformError.notFound }
            guard privileged else { throw PlatformError.unauthenticated }
            admin = true
            if parts[1] == "accounts" {
                operation = "signUp"
            } else if parts[1] == ":createSessionCookie" || parts[1] == ":queryAccounts" {
                operation = String(parts[1].dropFirst())
            } else if let name = parts[1].dropPrefix("accounts:") {
                operation = String(name)
            } else {
                throw PlatformError.notFound
            }
        } else if let rest = path.dropPrefix(Self.v2Prefix), let v2 = Self.v2Operation(rest) {
            throw PlatformError(status: 501, message: "\(v2) is not implemented", reason: "notImplemented", rpcStatus: "NOT_IMPLEMENTED")
        } else {
            throw PlatformError.notFound
        }
        return (operation, admin)
    }

    /// Runs one account operation (a POST with a JSON body) on the auth service.
    private func perform(
        _ operation: String, _ body: JSONValue, request: Request, privileged: Bool, clientAddress: String?
    ) async throws -> JSONValue {
        switch operation {
        case "signUp": return try Self.wire(await service.signUp(Self.decode(body), privileged: privileged))
        case "signInWithPassword": return try Self.wire(await service.signInWithPassword(Self.decode(body), clientAddress: clientAddress))
        case "lookup": return try Self.wire(await service.lookup(Self.decode(body), privileged: privileged))
        case "update": return try Self.wire(await service.update(Self.decode(body), privileged: privileged, linkBase: linkBase(request)))
        case "delete": return try Self.wire(await service.delete(Self.decode(body), privileged: privileged))
        case "sendOobCode": return try Self.wire(await service.sendOobCode(Self.decode(body), privileged: privileged, linkBase: linkBase(request)))
        case "resetPassword": return try Self.wire(await service.resetPassword(Self.decode(body)))
        case "signInWithEmailLink": return try Self.wire(await service.signInWithEmailLink(Self.decode(body), linkBase: linkBase(request)))
        case "sendVerificationCode": return try Self.wire(await service.sendVerificationCode(Self.decode(body), clientAddress: clientAddress))
        case "signInWithPhoneNumber": return try Self.wire(await service.signInWithPhoneNumber(Self.decode(body)))
        case "createAuthUri": return try Self.wire(await service.createAuthUri(Self.decode(body)))
        case "signInWithIdp": return try Self.wire(await service.signInWithIdp(Self.decode(body)))
        case "batchDelete", "batchCreate", "query", "queryAccounts", "createSessionCookie":
            guard privileged else { throw PlatformError.unauthenticated }
            switch operation {
            case "batchDelete": return try Self.wire(await service.batchDelete(Self.decode(body)))
            case "batchCreate": return try Self.wire(await service.batchCreate(Self.decode(body)))
            case "createSessionCookie": return try Self.wire(await service.createSessionCookie(Self.decode(body)))
            default: return try Self.wire(await service.query(Self.decode(body)))
            }
        case "signInWithCustomToken":
            // Custom tokens cannot be verified without the minting service account's key.
            guard configuration.dev || privileged else {
                throw PlatformError(
                    status: 501, message: "signInWithCustomToken needs --dev (custom tokens are not verifiable here)",
                    reason: "notImplemented", rpcStatus: "NOT_IMPLEMENTED")
            }
            return try Self.wire(await service.signInWithCustomToken(Self.decode(body)))
        default:
            // 501 says "Firebase has this, Hearth does not yet"; a name Firebase does not have is
            // a wrong URL, and a client should see the same 404 as for any other unknown route.
            guard Self.unimplementedOperations.contains(operation) else { throw PlatformError.notFound }
            throw PlatformError(status: 501, message: "\(operation) is not implemented yet", reason: "notImplemented", rpcStatus: "NOT_IMPLEMENTED")
        }
    }

    /// The Firebase Auth emulator's own endpoints, in `--dev` only: pending codes and a wipe.
    private func emulator(_ request: Request, _ rest: Substring) async throws -> JSONValue {
        guard configuration.dev else { throw PlatformError.notFound }
        let parts = rest.split(separator: "/")
        guard parts.count == 2, parts[0] == service.projectID else { throw PlatformError.notFound }
        switch (request.method, parts[1]) {
        case (.get, "oobCodes"): return try Self.wire(await service.pendingOobCodes())
        case (.get, "verificationCodes"): return try Self.wire(await service.pendingVerificationCodes())
        case (.delete, "accounts"):
            try await service.deleteAllAccounts()
            return .object([])
        case (.get, "config"):
            return emulatorConfig
        case (.patch, "config"):
            try updateEmulatorConfig(try await jsonBody(request))
            return emulatorConfig
        default: throw PlatformError.notFound
        }
    }

    private var emulatorConfig: JSONValue {
        .object([
            JSONMember("signIn", .object([JSONMember("allowDuplicateEmails", .bool(false))])),
            JSONMember("emailPrivacyConfig", .object([JSONMember("enableImprovedEmailPrivacy", .bool(service.emailPrivacy))])),
        ])
    }

    /// The emulator's `PATCH config`: fields present are changed, absent ones kept. Accounts here
    /// have unique emails, so `allowDuplicateEmails: true` is refused rather than ignored.
    private func updateEmulatorConfig(_ body: JSONValue) throws {
        func invalid(_ message: String) -> PlatformError {
            PlatformError(status: 400, message: message, reason: "badRequest", rpcStatus: "INVALID_ARGUMENT")
        }
        func section(_ name: String, _ field: String) throws -> Bool? {
            guard let value = body[name], value != .null else { return nil }
            guard case .object(let members) = value else { throw invalid("\(name) must be an object") }
            for m in members where m.key != field { throw invalid("Unknown field \(name).\(m.key)") }
            switch value[field] {
            case nil, .null?: return nil
            case .bool(let b)?: return b
            default: throw invalid("\(name).\(field) must be a boolean")
            }
        }
        guard case .object(let members) = body else { throw invalid("The config must be a JSON object") }
        for m in members where !["signIn", "emailPrivacyConfig"].contains(m.key) { throw invalid("Unknown field \(m.key)") }
        if try section("signIn", "allowDuplicateEmails") == true {
            throw invalid("allowDuplicateEmails is not supported: every account's email is unique")
        }
        if let privacy = try section("emailPrivacyConfig", "enableImprovedEmailPrivacy") { service.setEmailPrivacy(privacy) }
    }

    /// The target of out-of-band links (`--dev`): applies the code as a click on an emailed link
    /// would. `signIn` links redirect to the app's `continueUrl` with the code.
    private func action(_ request: Request) async -> Response {
        guard configuration.dev else { return Self.error(status: 404, message: "Not found", reason: "notFound", rpcStatus: "NOT_FOUND") }
        let p = parseQueryString(request.uri.query)
        func outcome(_ key: String, _ value: JSONValue, email: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
            var members = [JSONMember(key, value)]
            if let email { members.append(JSONMember("email", .string(email))) }
            return Self.json(.object([JSONMember("authEmulator", .object(members))]), status: status)
        }
        guard let code = p["oobCode"], let mode = p["mode"] else { return outcome("error", .string("Missing mode or oobCode"), status: .badRequest) }
        do {
            switch mode {
            case "resetPassword":
                guard let newPassword = p["newPassword"], newPassword != "NEW_PASSWORD_HERE" else {
                    return outcome("error", .string("Add &newPassword=... to the link to reset the password"), status: .badRequest)
                }
                let result = try await service.resetPassword(IdentityToolkit.ResetPasswordRequest(oobCode: code, newPassword: newPassword))
                let email = result.email
                return outcome("success", .string("The password has been successfully updated for \(email ?? "")."), email: email)
            case "verifyEmail", "verifyAndChangeEmail":
                let applied = IdentityToolkit.SetAccountInfoRequest(oobCode: code)
                let result = try await service.update(applied, privileged: false, linkBase: linkBase(request))
                let email = result.email
                return outcome("success", .string("The email \(email ?? "") has been verified."), email: email)
            case "recoverEmail":
                let applied = IdentityToolkit.SetAccountInfoRequest(oobCode: code)
                let result = try await service.update(applied, privileged: false, linkBase: linkBase(request))
                let email = result.email
                return outcome("success", .string("The email \(email ?? "") has been restored."), email: email)
            case "signIn":
                guard let target = p["continueUrl"].flatMap({ try? service.authorizedContinueURL($0) }) else {
                    return outcome("error", .string("signIn links need a continueUrl"), status: .badRequest)
                }
                var h = HTTPFields()
                h[.location] = ActionPage.signInLocation(target, parameters: p)
                return Response(status: .seeOther, headers: h)
            default:
                return outcome("error", .string("Unknown mode \(mode)"), status: .badRequest)
            }
        } catch let e as AuthError {
            return outcome("error", .string(e.message), status: .badRequest)
        } catch {
            return outcome("error", .string("Internal error"), status: .internalServerError)
        }
    }

    /// Where out-of-band links point: the public URL, else this server (see `ServerConfiguration.publicURL`).
    private func linkBase(_ request: Request) -> String {
        if let publicURL = configuration.publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let host = (configuration.dev ? request.head.authority : nil) ?? "\(configuration.host):\(configuration.port)"
        return "http://" + host.filter { !$0.isWhitespace && $0 != "/" }
    }

    static let tokenPath = "/securetoken.googleapis.com/v1/token"

    /// A token request's fields (either spelling) as the typed request.
    private static func refreshRequest(_ fields: [String: String]) -> IdentityToolkit.RefreshTokenRequest {
        IdentityToolkit.RefreshTokenRequest(
            grantType: fields["grant_type"] ?? fields["grantType"], refreshToken: fields["refresh_token"] ?? fields["refreshToken"])
    }

    /// A JSON body read as an operation's request type; a field of the wrong JSON type is `INVALID_ARGUMENT`
    /// (`Invalid value at 'email' (TYPE_STRING), 5`), as Google's front end answers it.
    static func decode<Request: Decodable>(_ body: JSONValue, as type: Request.Type = Request.self) throws -> Request {
        try AuthError.decode(type, from: body)
    }

    /// A Secure Token refresh computed without suspending, for `InlineResponseHandler` (`HearthResponder.respondNow`
    /// runs it on NIO's thread pool): exactly `respond`'s answer, or nil to let `respond` answer (the account store
    /// cannot read without waiting, the user's `lastRefreshAt` is due to be written, or something unexpected failed,
    /// which `respond` logs). It saves the hops through a request task, ~25 µs of a refresh's ~100 µs besides its
    /// RSA signature.
    /// `uri` is the head's path, already parsed by the caller.
    func respondNow(to head: HTTPRequest, uri: URI, body: ByteBuffer) -> InlineReply? {
        guard head.method == .post, uri.path == Self.tokenPath else { return nil }
        do {
            try requireKey(head.headerFields, parseQueryString(uri.query), try isPrivileged(head.headerFields))
            let fields = try Self.tokenFields(body)
            guard let answer = try service.refreshNow(Self.refreshRequest(fields)) else {
                return nil
            }
            SignInCounts.record(.refresh, success: true)
            return Responses.jsonReply(try Self.wire(answer).jsonBytes)
        } catch let e as AuthError {
            SignInCounts.record(.refresh, success: false)
            return Self.errorReply(status: Self.refusalStatus, message: e.message, reason: "invalid", rpcStatus: nil)
        } catch let e as PlatformError {
            return Self.errorReply(status: e.status, message: e.message, reason: e.reason, rpcStatus: e.rpcStatus)
        } catch {
            return nil
        }
    }

    /// Admin calls carry the admin credential as a Bearer token; any other Bearer is refused.
    private func isPrivileged(_ request: Request) throws -> Bool {
        try isPrivileged(request.headers)
    }

    private func isPrivileged(_ headers: HTTPFields) throws -> Bool {
        guard let token = headers.authorizationToken() else { return false }
        if authenticator.isAdmin(token) { return true }
        throw PlatformError.unauthenticated
    }

    private func requireKey(_ request: Request, _ parameters: [String: String], _ privileged: Bool) throws {
        try requireKey(request.headers, parameters, privileged)
    }

    private func requireKey(_ headers: HTTPFields, _ parameters: [String: String], _ privileged: Bool) throws {
        if privileged { return }
        let key = parameters["key"] ?? headers[HTTPField.Name("X-Goog-Api-Key")!]
        guard let key, !key.isEmpty else { throw PlatformError.missingKey }
    }

    private func rawBody(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: 1 << 20)
        } catch {
            throw PlatformError(status: 413, message: "Request body too large", reason: "invalid", rpcStatus: "INVALID_ARGUMENT")
        }
    }

    private func jsonBody(_ request: Request) async throws -> JSONValue {
        let buffer = try await rawBody(request)
        if buffer.readableBytes == 0 { return .object([]) }
        guard let json = try? JSONValue.parse(buffer.readableBytesView), case .object = json else {
            throw PlatformError(status: 400, message: "Invalid JSON payload received.", reason: "invalid", rpcStatus: "INVALID_ARGUMENT")
        }
        return json.camelCasedKeys()
    }

    /// Form-encoded (JS SDK, REST docs) or JSON (Pyrebase) token requests.
    private func tokenBody(_ request: Request) async throws -> [String: String] {
        try Self.tokenFields(try await rawBody(request))
    }

    /// A Secure Token body's fields: JSON or a form.
    private static func tokenFields(_ buffer: ByteBuffer) throws -> [String: String] {
        let text = String(buffer: buffer)
        if text.first == "{" {
            guard case .object(let members)? = try? JSONValue.parse(text) else {
                throw PlatformError(status: 400, message: "Invalid JSON payload received.", reason: "invalid", rpcStatus: "INVALID_ARGUMENT")
            }
            var out: [String: String] = [:]
            for m in members { if let s = m.value.stringValue { out[m.key] = s } }
            return out
        }
        return parseFormBody(text)
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Responses.jsonReply(value.jsonBytes, status: status).response
    }

    /// The Google error envelope.
    static func error(status: Int, message: String, reason: String, rpcStatus: String?) -> Response {
        errorReply(status: status, message: message, reason: reason, rpcStatus: rpcStatus).response
    }

    static func errorReply(status: Int, message: String, reason: String, rpcStatus: String?) -> InlineReply {
        var error = [
            JSONMember("code", .int(Int64(status))), JSONMember("message", .string(message)),
            JSONMember("errors", .array([.object([
                JSONMember("message", .string(message)), JSONMember("domain", .string("global")), JSONMember("reason", .string(reason)),
            ])])),
        ]
        if let rpcStatus { error.append(JSONMember("status", .string(rpcStatus))) }
        return Responses.jsonReply(JSONValue.object([JSONMember("error", .object(error))]).jsonBytes, status: HTTPResponse.Status(code: status))
    }

    static func preflight(_ request: Request) -> Response {
        var h = HTTPFields()
        h[.accessControlAllowOrigin] = request.headers[.origin] ?? "*"
        h[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
        h[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "*"
        if request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] != nil {
            h[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
        }
        return Response(status: .noContent, headers: h)
    }
}

extension StringProtocol {
    func dropPrefix(_ prefix: String) -> SubSequence? {
        hasPrefix(prefix) ? self[index(startIndex, offsetBy: prefix.count)...] : nil
    }
}
