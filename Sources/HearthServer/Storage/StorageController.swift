import HTTPTypes
import HearthAuth
import HearthCore
import HearthFiles
import HearthStorage
import HearthStore
import Hummingbird
import Logging
import NIOCore

/// Serves Firebase Storage v0 (`/v0/b/…`, what the client SDKs call) and the Cloud Storage JSON
/// API (`/storage/v1/…`, `/upload/storage/v1/…`, `/download/storage/v1/…`, what
/// google-cloud-storage and firebase-admin call) on the server's port.
struct StorageController: Sendable {
    let service: StorageService
    let configuration: ServerConfiguration
    let auth: AuthService?
    let logger: Logger
    /// The storage rules applied to callers (and the upload sessions, checked under them).
    let access: StorageAccess
    /// Credentials → caller, shared with the other products.
    let authenticator: Authenticator

    init(
        service: StorageService, configuration: ServerConfiguration, auth: AuthService?, rules: StorageRulesHolder, logger: Logger,
        authenticator: Authenticator? = nil
    ) {
        self.service = service
        self.configuration = configuration
        self.auth = auth
        self.logger = logger
        let dev = configuration.dev
        self.access = StorageAccess(service: service, rules: rules) { [logger] method, bucket, name, reason in
            guard dev else { return }
            logger.info(
                "storage rules denied a request",
                metadata: ["hearth.method": "\(method)", "hearth.object": "\(bucket)/\(name)", "hearth.rule": "\(reason)"])
        }
        self.authenticator = authenticator ?? Authenticator(configuration, verifier: auth)
    }

    static let prefixes = ["/v0/b/", "/storage/v1/", "/upload/storage/v1/", "/download/storage/v1/", "/internal/setRules", "/internal/getRules"]

    static func handles(_ path: String) -> Bool { prefixes.contains { path.hasPrefix($0) } || path == "/v0/b" }


    func respond(to request: Request) async -> Response {
        if request.method == .options { return Self.preflight(request) }
        let path = request.uri.path
        let firebase = path.hasPrefix("/v0/")
        do {
            if firebase { return try await firebaseAPI(request) }
            if path.hasPrefix("/internal/") { return try await rulesEndpoint(request) }
            return try await cloudAPI(request)
        } catch let error as StorageError {
            return firebase ? Self.firebaseError(error) : Self.cloudError(error)
        } catch let error as BlobStoreError where error.code == .uploadBusy {
            let busy = StorageError(.conflict, "The upload is busy with another request; retry.")
            return firebase ? Self.firebaseError(busy) : Self.cloudError(busy)
        } catch let error as BlobStoreError where error.code == .notFound {
            return firebase ? Self.firebaseError(.notFound()) : Self.cloudError(.notFound())
        } catch let error as BlobStoreError where error.isDiskFull {
            logger.error("storage write refused: the disk is full", metadata: ["hearth.error": "\(error)"])
            return firebase ? Self.firebaseError(.diskFull) : Self.cloudError(.diskFull)
        } catch let error as StoreFullError {
            logger.error("storage write refused: the disk is full", metadata: ["hearth.error": "\(error.detail)"])
            return firebase ? Self.firebaseError(.diskFull) : Self.cloudError(.diskFull)
        } catch {
            logger.error("storage request failed", metadata: ["hearth.error": "\(error)"])
            let failure = StorageError.internalError
            return firebase ? Self.firebaseError(failure) : Self.cloudError(failure)
        }
    }

    // MARK: Credentials

    /// The bearer/Firebase token of a request, if any.
    static func credential(_ request: Request) -> String? { request.authorizationToken(schemes: ["bearer", "firebase"]) }

    func isAdmin(_ token: String) -> Bool { authenticator.isAdmin(token) }

    /// v0: the admin credential skips rules; an ID token becomes `request.auth`; a bad or expired token is 401.
    func caller(_ request: Request) throws -> Caller {
        do {
            return try authenticator.caller(Self.credential(request))
        } catch {
            throw StorageError(.authError, "Invalid auth token.")
        }
    }

    /// The Cloud Storage JSON API is an admin API: open in `--dev` (as the emulator), otherwise
    /// only with the admin credential.
    func requireAdmin(_ request: Request) throws {
        if configuration.dev { return }
        guard let token = Self.credential(request), isAdmin(token) else { throw StorageError.unauthorized }
    }

    /// `http://host:port` as the client reached this server (links in resources must lead back here).
    func base(_ request: Request) -> String {
        if let publicURL = configuration.publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return "http://" + host.filter { !$0.isWhitespace && $0 != "/" }
    }

    // MARK: Responses

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var h = headers
        h[.contentType] = "application/json; charset=utf-8"
        h[.accessControlAllowOrigin] = "*"
        h[.accessControlExposeHeaders] = exposed
        return Response(status: status, headers: h, body: .init(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }

    static let exposed = [
        "content-type", "x-firebase-storage-version", "X-Goog-Upload-Size-Received", "x-goog-upload-url", "x-goog-upload-command",
        "x-gupload-uploadid", "x-goog-upload-header-content-length", "x-goog-upload-header-content-type", "x-goog-upload-protocol",
        "x-goog-upload-status", "x-goog-upload-chunk-granularity", "x-goog-upload-control-url",
    ].joined(separator: ", ")

    static func firebaseError(_ e: StorageError) -> Response {
        json(.object([JSONMember("error", .object([JSONMember("code", .int(Int64(e.status))), JSONMember("message", .string(e.message))]))]),
            status: HTTPResponse.Status(code: e.status))
    }

    static func cloudError(_ e: StorageError) -> Response {
        json(.object([JSONMember("error", .object([
            JSONMember("code", .int(Int64(e.status))), JSONMember("message", .string(e.message)),
            JSONMember("errors", .array([.object([
                JSONMember("message", .string(e.message)), JSONMember("domain", .string("global")), JSONMember("reason", .string(e.reason)),
            ])])),
        ]))]), status: HTTPResponse.Status(code: e.status))
    }

    static func preflight(_ request: Request) -> Response {
        var h = HTTPFields()
        h[.accessControlAllowOrigin] = request.headers[.origin] ?? "*"
        h[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
        h[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "*"
        h[.accessControlExposeHeaders] = exposed
        if request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] != nil {
            h[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
        }
        return Response(status: .noContent, headers: h)
    }

    /// Splits a raw path after `prefix` into segments, each percent-decoded once.
    static func segments(_ path: String, after prefix: String) throws -> [String] {
        guard let rest = path.dropPrefix(prefix) else { return [] }
        return try rest.split(separator: "/", omittingEmptySubsequences: false).map {
            guard let decoded = percentDecode($0) else { throw StorageError.badRequest("Invalid percent-encoding in the path") }
            return decoded
        }
    }
}
