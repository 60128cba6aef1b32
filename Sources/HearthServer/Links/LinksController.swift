import HTTPTypes
import HearthAuth
import HearthCore
import HearthLinks
import HearthStore
import Hummingbird
import Logging
import NIOCore

/// Firebase Dynamic Links on the server's port: the REST API (`/v1/shortLinks`,
/// `/v1/reopenAttribution`, `/v1/installAttribution`, `/v1/{shortLink}/linkStats`, also under
/// `/firebasedynamiclinks.googleapis.com/`) and the links themselves (`/{suffix}`,
/// `/<prefix path>/{suffix}`, `/?link=…`).
struct LinksController: Sendable {
    let service: LinkService
    let configuration: ServerConfiguration
    /// Verifies the ID tokens of users who make links (nil: only the admin may, outside `--dev`).
    let auth: AuthService?
    let logger: Logger
    /// Credentials → caller, shared with the other products.
    let authenticator: Authenticator
    /// Paths of configured prefixes that have one (`/links` for `https://ex.com/links`).
    let prefixPaths: Set<Substring>
    /// The host name of each configured prefix, for the per-request host check (`servesOnHost`).
    let prefixHosts: [String: String]

    static let apiHost = "/firebasedynamiclinks.googleapis.com"
    /// Largest create/attribution request body.
    static let maxBodyBytes = 64 * 1024

    init(
        service: LinkService, configuration: ServerConfiguration, auth: AuthService? = nil, logger: Logger, authenticator: Authenticator? = nil
    ) {
        self.service = service
        self.configuration = configuration
        self.auth = auth
        self.logger = logger
        self.authenticator = authenticator ?? Authenticator(configuration, verifier: auth)
        prefixPaths = Set(service.domains.map { Substring($0.path) }.filter { !$0.isEmpty })
        prefixHosts = Dictionary(
            service.domains.compactMap { d in LinkURL(d.prefix).map { (d.prefix, Self.hostName($0.authority)) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether `path` is one of the REST endpoints.
    static func handles(_ path: String) -> Bool {
        if path.hasPrefix(apiHost + "/") { return true }
        guard path.hasPrefix("/v1/") else { return false }
        return path == "/v1/shortLinks" || path == "/v1/reopenAttribution" || path == "/v1/installAttribution" || path.hasSuffix("/linkStats")
    }

    func respond(to request: Request) async -> Response {
        if request.method == .options { return AuthController.preflight(request) }
        do {
            return try await handle(request)
        } catch let e as LinkError {
            switch e.code {
            case .notFound: return AuthController.error(status: 404, message: e.message, reason: "notFound", rpcStatus: "NOT_FOUND")
            default: return AuthController.error(status: 400, message: e.message, reason: "badRequest", rpcStatus: "INVALID_ARGUMENT")
            }
        } catch let e as AuthController.PlatformError {
            return AuthController.error(status: e.status, message: e.message, reason: e.reason, rpcStatus: e.rpcStatus)
        } catch let e as StoreFullError {
            logger.error("links write refused: the disk is full", metadata: ["hearth.error": "\(e.detail)"])
            return AuthController.error(status: 507, message: e.description, reason: "insufficientStorage", rpcStatus: "RESOURCE_EXHAUSTED")
        } catch {
            logger.error("links request failed", metadata: ["hearth.error": "\(error)"])
            return AuthController.error(status: 500, message: "Internal error", reason: "backendError", rpcStatus: "INTERNAL")
        }
    }

    private func handle(_ request: Request) async throws -> Response {
        var path = Substring(request.uri.path)
        if path.hasPrefix(Self.apiHost + "/") { path = path.dropFirst(Self.apiHost.count) }
        if path.hasSuffix("/linkStats"), path.hasPrefix("/v1/") {
            guard request.method == .get else { throw AuthController.PlatformError.notFound }
            return try await stats(request, encoded: path.dropFirst(4).dropLast("/linkStats".count))
        }
        guard request.method == .post else { throw AuthController.PlatformError.notFound }
        let parameters = parseQueryString(request.uri.query)
        try requireKey(request, parameters)
        switch path {
        case "/v1/shortLinks":
            try requireCreator(request)
            return try await create(request)
        case "/v1/reopenAttribution": return try await reopenAttribution(request)
        case "/v1/installAttribution":
            _ = try await body(request)
            // No fingerprinting: an install is never matched to a click ("none" match).
            return AuthController.json(.object([]))
        default: throw AuthController.PlatformError.notFound
        }
    }

    // MARK: Requests

    /// An API key (any) or the admin credential, as for the other Google APIs.
    private func requireKey(_ request: Request, _ parameters: [String: String]) throws {
        if isAdmin(request) { return }
        let key = parameters["key"] ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
        guard let key, !key.isEmpty else { throw AuthController.PlatformError.missingKey }
    }

    func isAdmin(_ request: Request) -> Bool { authenticator.isAdmin(request.authorizationToken()) }

    /// Outside `--dev`, links are made by the admin or a signed-in user (`Authorization: Bearer
    /// <ID token>`), unless `--links-public-create` lets anyone with an API key, as Firebase did.
    private func requireCreator(_ request: Request) throws {
        if configuration.dev || configuration.linksPublicCreate || isAdmin(request) { return }
        guard let token = request.authorizationToken(schemes: ["bearer", "firebase"]), (try? authenticator.user(token)) != nil else {
            throw AuthController.PlatformError(
                status: 401, message: "Making short links needs a signed-in user: send Authorization: Bearer <ID token>",
                reason: "authError", rpcStatus: "UNAUTHENTICATED")
        }
    }

    private func body(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch {
            throw AuthController.PlatformError(
                status: 413, message: "Request body larger than \(Self.maxBodyBytes) bytes", reason: "invalid", rpcStatus: "INVALID_ARGUMENT")
        }
    }

    /// A JSON object body, or a form-encoded one (`longDynamicLink=…`) read into the same shape.
    private func jsonBody(_ request: Request, allowForm: Bool = false) async throws -> JSONValue {
        let buffer = try await body(request)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if allowForm && contentType.hasPrefix("application/x-www-form-urlencoded") {
            var members: [JSONMember] = []
            for (name, value) in parseFormBody(String(buffer: buffer)) {
                switch name {
                case "longDynamicLink": members.append(JSONMember(name, .string(value)))
                case "suffix.option": members.append(JSONMember("suffix", .object([JSONMember("option", .string(value))])))
                case "key", "sdkVersion": break
                default: throw LinkError(.invalidArgument, "Invalid form field \"\(name)\": send longDynamicLink (and suffix.option)")
                }
            }
            return .object(members)
        }
        guard buffer.readableBytes > 0 else { throw LinkError(.invalidArgument, "The request body is empty") }
        guard let json = try? JSONReader(maxDepth: 16).parse(buffer.readableBytesView), case .object = json else {
            throw LinkError(.invalidArgument, "Invalid JSON payload received.")
        }
        return json
    }

    /// The server's own origin, accepted as a link domain in `--dev`.
    func devDomain(_ request: Request) -> LinkDomain? {
        guard configuration.dev, let authority = request.head.authority else { return nil }
        return LinkDomain("http://" + authority)
    }

    // MARK: Create

    private func create(_ request: Request) async throws -> Response {
        let made = try await service.create(try await jsonBody(request, allowForm: true), extraDomain: devDomain(request))
        var members = [JSONMember("shortLink", .string(made.shortLink)), JSONMember("previewLink", .string(made.previewLink))]
        if !made.warnings.isEmpty {
            members.append(JSONMember("warning", .array(made.warnings.map {
                .object([JSONMember("warningCode", .string($0.code.rawValue)), JSONMember("warningMessage", .string($0.message))])
            })))
        }
        return AuthController.json(.object(members))
    }

    // MARK: Attribution

    /// What the iOS SDK asks when a universal link opens the app: the deep link behind a short link.
    private func reopenAttribution(_ request: Request) async throws -> Response {
        let body = try await jsonBody(request)
        guard let requested = body["requestedLink"]?.stringValue ?? body["requested_link"]?.stringValue, !requested.isEmpty else {
            throw LinkError(.invalidArgument, "requestedLink is required")
        }
        guard let resolved = try await service.resolve(url: requested) else {
            throw LinkError(.notFound, "No dynamic link found for requestedLink")
        }
        let link = resolved.link
        var members: [JSONMember] = []
        func add(_ key: String, _ value: String?) { if let value { members.append(JSONMember(key, .string(value))) } }
        add("deepLink", link.link)
        add("invitationId", resolved.record?.inviter)
        add("iosMinAppVersion", link["imv"])
        add("resolvedLink", link.longLink)
        add("utmSource", link["utm_source"])
        add("utmMedium", link["utm_medium"])
        add("utmCampaign", link["utm_campaign"])
        add("utmContent", link["utm_content"])
        add("utmTerm", link["utm_term"])
        if let suffix = resolved.record?.suffix { service.record(suffix, .ios, .appReOpen) }
        return AuthController.json(.object(members))
    }

    // MARK: Stats

    /// `GET /v1/{url-encoded short link}/linkStats?durationDays=N` (admin credential).
    private func stats(_ request: Request, encoded: Substring) async throws -> Response {
        guard request.headers[.authorization] != nil else { throw AuthController.PlatformError.unauthenticated }
        guard isAdmin(request) else {
            throw AuthController.PlatformError(
                status: 403, message: "The caller does not have permission", reason: "forbidden", rpcStatus: "PERMISSION_DENIED")
        }
        let parameters = parseQueryString(request.uri.query)
        guard let text = parameters["durationDays"], let days = Int(text), (1...3650).contains(days) else {
            throw LinkError(.invalidArgument, "durationDays must be a whole number of days from 1 to 3650")
        }
        guard let shortLink = percentDecode(encoded), let resolved = try await service.resolve(url: shortLink), let record = resolved.record else {
            throw LinkError(.notFound, "No short link \(String(encoded).prefix(200)) in this project")
        }
        var totals: [LinkStatsKey: Int64] = [:]
        for c in try await service.counts(suffix: record.suffix, days: days) {
            totals[LinkStatsKey(platform: c.key.platform, event: c.key.event), default: 0] += c.count
        }
        let rows = totals.sorted { ($0.key.platform.rawValue, $0.key.event.rawValue) < ($1.key.platform.rawValue, $1.key.event.rawValue) }
        guard !rows.isEmpty else { return AuthController.json(.object([])) }
        return AuthController.json(.object([JSONMember("linkEventStats", .array(rows.map {
            .object([
                JSONMember("platform", .string($0.key.platform.rawValue)), JSONMember("event", .string($0.key.event.rawValue)),
                JSONMember("count", .string(String($0.value))),
            ])
        }))]))
    }

    struct LinkStatsKey: Hashable {
        var platform: LinkPlatform
        var event: LinkEvent
    }
}
