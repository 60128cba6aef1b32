import Foundation
import HTTPTypes
import HearthConsole
import HearthCore
import Hummingbird
import NIOCore
import Synchronization

/// The web console at `/_/` and its session: the pages (one shell whose scripts pick the view), their files under
/// `/_/assets/`, and `/.hearth/console/session` to sign in (`POST`), read the session (`GET`) and sign out (`DELETE`).
///
/// The console holds no credential of its own: a signed-in browser carries an HttpOnly, SameSite=Strict cookie, and
/// ``gate(_:)`` turns that cookie into the admin credential of each request it comes with, so the pages use the
/// public APIs (REST, Identity Toolkit, storage, links) and the documented `/.hearth/…` endpoints like any admin
/// client. A change (any method but GET, HEAD and OPTIONS) made with the cookie must carry the session's CSRF token
/// in `X-Hearth-CSRF`, or it is refused with 403 before any product sees it.
final class ConsoleController: Sendable {
    let sessions: ConsoleSessions
    let configuration: ServerConfiguration
    /// The project's name and the products this server runs, for the pages (`users,storage,functions,links`).
    let project: String
    let products: [String]
    let clock: @Sendable () -> Int64
    private let failures = Mutex<[String: (count: Int, since: Int64)]>([:])

    static let csrfHeader = HTTPField.Name("X-Hearth-CSRF")!
    static let sessionPath = "/.hearth/console/session"
    /// Wrong credentials a client address may send per ``failureWindowMillis`` before it has to wait.
    static let maxFailures = 10
    static let failureWindowMillis: Int64 = 5 * 60 * 1000

    init(sessions: ConsoleSessions, configuration: ServerConfiguration, project: String, products: [String], clock: @escaping @Sendable () -> Int64) {
        self.sessions = sessions
        self.configuration = configuration
        self.project = project
        self.products = products
        self.clock = clock
    }

    static func handles(_ path: String) -> Bool { path == "/_" || path.hasPrefix("/_/") || path == sessionPath }

    private var now: Date { Date(timeIntervalSince1970: TimeInterval(clock()) / 1000) }

    // MARK: The cookie

    /// What the console's cookie does to a request on its way to the products.
    enum Gate {
        /// The request as it goes on: with the session's credential when its cookie holds a live session.
        case pass(Request)
        /// A change that came with the cookie but without the session's CSRF token.
        case refuse(Response)
    }

    /// Whether `head` may carry the console's cookie (such requests skip the answers computed on the event loop).
    static func mayCarrySession(_ fields: HTTPFields) -> Bool {
        fields[values: .cookie].contains { $0.contains(ConsoleSessions.cookieName + "=") }
    }

    /// The session of the cookie `fields` carry, if it is live.
    func session(_ fields: HTTPFields) -> ConsoleSessions.Session? {
        guard let value = Self.cookie(fields) else { return nil }
        return sessions.check(value, now: now)
    }

    /// Applies the session a request's cookie holds. A request that names its own credential (`Authorization`) or
    /// whose cookie is not a live session goes on unchanged; the products then answer it as they would anyway.
    func gate(_ request: Request) -> Gate {
        guard request.headers[.authorization] == nil, let session = session(request.headers) else { return .pass(request) }
        if ![.get, .head, .options].contains(request.method), !sessions.csrfMatches(request.headers[Self.csrfHeader], session) {
            return .refuse(Self.error(.forbidden, "This change came with the console's session cookie but without its CSRF token (X-Hearth-CSRF)."))
        }
        var head = request.head
        head.headerFields[.authorization] = "Bearer " + ConsoleSessions.credentialPrefix + session.cookie
        return .pass(Request(head: head, body: request.body))
    }

    static func cookie(_ fields: HTTPFields) -> String? {
        for header in fields[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if let eq = trimmed.firstIndex(of: "="), trimmed[..<eq] == ConsoleSessions.cookieName {
                    return String(trimmed[trimmed.index(after: eq)...])
                }
            }
        }
        return nil
    }

    // MARK: Pages and the session API

    func respond(to request: Request, clientAddress: String?) async -> Response {
        let path = request.uri.path
        if path == Self.sessionPath { return await sessionEndpoint(request, clientAddress: clientAddress) }
        guard request.method == .get || request.method == .head else { return Self.error(.methodNotAllowed, "Console pages are read with GET.") }
        if path == "/_" || path == "/_/" { return Self.redirect("/_/overview") }
        if path.hasPrefix("/_/assets/") { return asset(String(path.dropFirst("/_/assets/".count)), request) }
        let live = session(request.headers)
        if path == "/_/login" {
            if live != nil { return Self.redirect(Self.safeNext(request) ?? "/_/overview") }
            return shell(csrf: "", setCookie: nil)
        }
        if let live { return shell(csrf: live.csrfToken, setCookie: nil) }
        if configuration.dev {
            // `--dev`: straight in.
            let opened = sessions.open(now: now)
            return shell(csrf: opened.csrfToken, setCookie: cookieHeader(opened, request))
        }
        var next = path
        if let query = request.uri.query, !query.isEmpty { next += "?" + query }
        return Self.redirect("/_/login?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-_.~"))) ?? ""))
    }

    /// `next` from the sign-in page's address when it is a console page (never another site).
    private static func safeNext(_ request: Request) -> String? {
        guard let next = parseQueryString(request.uri.query)["next"], next.hasPrefix("/_/"), !next.hasPrefix("/_//") else { return nil }
        return next
    }

    private func sessionEndpoint(_ request: Request, clientAddress: String?) async -> Response {
        switch request.method {
        case .get:
            guard let live = session(request.headers) else { return Self.error(.unauthorized, "Not signed in to the console.") }
            return Self.json(sessionJSON(live))
        case .post:
            let address = clientAddress ?? "unknown"
            if isLockedOut(address) {
                return Self.error(.tooManyRequests, "Too many wrong credentials from this address; try again in a few minutes.")
            }
            let body = try? await request.body.collect(upTo: 16 * 1024)
            let json = body.flatMap { buffer in try? buffer.withUnsafeReadableBytes { try JSONReader(maxDepth: 4).parse($0) } }
            guard case .object? = json else { return Self.error(.badRequest, "Expected {\"credential\": \"…\"}.") }
            let credential = json?["credential"]?.stringValue ?? ""
            let accepted = configuration.dev || constantTimeEquals(credential, configuration.adminToken)
            guard accepted else {
                recordFailure(address)
                return Self.error(.unauthorized, "That is not the admin credential.")
            }
            let opened = sessions.open(now: now)
            var headers = HTTPFields()
            headers[.setCookie] = cookieHeader(opened, request)
            return Self.json(sessionJSON(opened), headers: headers)
        case .delete:
            // The gate already refused a DELETE with a live cookie and no CSRF token; one with a dead cookie or none
            // only clears the cookie.
            if let value = Self.cookie(request.headers) { sessions.revoke(value, now: now) }
            var headers = HTTPFields()
            headers[.setCookie] = "\(ConsoleSessions.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure(request) ? "; Secure" : "")
            headers[.cacheControl] = "no-store"
            return Response(status: .noContent, headers: headers)
        default:
            return Self.error(.methodNotAllowed, "Use GET, POST or DELETE.")
        }
    }

    private func sessionJSON(_ session: ConsoleSessions.Session) -> JSONValue {
        .object([
            JSONMember("csrfToken", .string(session.csrfToken)),
            JSONMember("expiresAt", .int(Int64(session.expires.timeIntervalSince1970 * 1000))),
            JSONMember("project", .string(project)),
            JSONMember("namespace", .string(configuration.defaultNamespace)),
            JSONMember("dev", .bool(configuration.dev)),
            JSONMember("products", .array(products.map { .string($0) })),
        ])
    }

    private func cookieHeader(_ session: ConsoleSessions.Session, _ request: Request) -> String {
        let maxAge = max(0, Int(session.expires.timeIntervalSince(now)))
        return "\(ConsoleSessions.cookieName)=\(session.cookie); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure(request) ? "; Secure" : "")
    }

    /// Served over TLS: the public address is https, or the proxy in front says the request came that way.
    private func secure(_ request: Request) -> Bool {
        if configuration.publicURL?.lowercased().hasPrefix("https:") == true { return true }
        return request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    private func isLockedOut(_ address: String) -> Bool {
        let t = clock()
        return failures.withLock { list in
            guard let entry = list[address] else { return false }
            if t - entry.since > Self.failureWindowMillis {
                list[address] = nil
                return false
            }
            return entry.count >= Self.maxFailures
        }
    }

    private func recordFailure(_ address: String) {
        let t = clock()
        failures.withLock { list in
            if list.count > 10_000 { list = list.filter { t - $0.value.since <= Self.failureWindowMillis } }
            if let entry = list[address], t - entry.since <= Self.failureWindowMillis {
                list[address] = (entry.count + 1, entry.since)
            } else {
                list[address] = (1, t)
            }
        }
    }

    // MARK: Answers

    private func shell(csrf: String, setCookie: String?) -> Response {
        let template = String(decoding: (Self.file("index.html") ?? ConsoleAssets.shell).bytes, as: UTF8.self)
        let page = template
            .replacingOccurrences(of: "%%CSRF%%", with: HTML.escape(csrf))
            .replacingOccurrences(of: "%%PROJECT%%", with: HTML.escape(project))
            .replacingOccurrences(of: "%%NAMESPACE%%", with: HTML.escape(configuration.defaultNamespace))
            .replacingOccurrences(of: "%%DEV%%", with: configuration.dev ? "true" : "false")
            .replacingOccurrences(of: "%%PRODUCTS%%", with: HTML.escape(products.joined(separator: ",")))
        var headers = Self.pageHeaders
        headers[.contentType] = ConsoleAssets.shell.contentType
        headers[.cacheControl] = "no-store"
        if let setCookie { headers[.setCookie] = setCookie }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// For work on the console itself: `HEARTH_CONSOLE_DIR=Sources/HearthConsole/web` serves the files from that folder,
    /// read at each request, instead of the ones compiled in (so an edit shows on reload, without a build).
    static let folder: String? = ProcessInfo.processInfo.environment["HEARTH_CONSOLE_DIR"].flatMap { $0.isEmpty ? nil : $0 }

    private static func file(_ name: String) -> ConsoleAsset? {
        guard let folder else { return ConsoleAssets.asset(name) }
        guard !name.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") }),
            let data = FileManager.default.contents(atPath: folder + "/" + name), let known = ConsoleAssets.contentType(for: name)
        else { return nil }
        return ConsoleAsset(contentType: known, text: String(decoding: data, as: UTF8.self))
    }

    private func asset(_ name: String, _ request: Request) -> Response {
        guard let asset = Self.file(name) else { return Self.error(.notFound, "No console file \(name)") }
        var headers = Self.pageHeaders
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        if request.headers[values: .ifNoneMatch].contains(where: { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == asset.etag } }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// Scripts and styles from the console's own files only; no framing by other sites.
    static let pageHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!:
            "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var w = JSONWriter(pretty: false)
        w.write(value)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: w.bytes)))
    }

    /// `{"error": message}`, as the database's REST errors.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(.object([JSONMember("error", .string(message))]), status: status)
    }
}
