import HTTPTypes
import HearthCore
import HearthFunctions
import Hummingbird
import NIOCore

/// Hearth's own admin endpoints under `/.hearth/` that no Firebase API covers, for the console and for scripts
/// (docs/console.md lists them): rules checks and the simulator (`/.hearth/rules/…`), short links with their click
/// statistics (`/.hearth/links…`) and the server's load and sizes (`/.hearth/overview`). `/.hearth/functions…` is the
/// functions runtime's (`FunctionsHTTP`); without functions it answers here, with none. Every endpoint is admin only:
/// the admin credential, or a console session (see ``ConsoleController``).
struct AdminController: Sendable {
    let database: DatabaseController
    let storage: StorageController?
    let links: LinksController?
    let functions: FunctionsRuntime?
    let metrics: ServerMetrics
    let authenticator: Authenticator
    let configuration: ServerConfiguration

    static let prefix = "/.hearth/"

    static func handles(_ path: String) -> Bool { path.hasPrefix(prefix) }

    func respond(to request: Request) async -> Response {
        let path = request.uri.path
        guard authenticator.isAdmin(request.authorizationToken()) else {
            return ConsoleController.error(.unauthorized, "Admin credential required.")
        }
        let rest = Substring(path.dropFirst(Self.prefix.count))
        do {
            if let sub = rest.afterSegment("rules") { return try await rules(request, sub) }
            if let sub = rest.afterSegment("links") { return try await links(request, sub) }
            if rest == "overview" { return try await overview(request) }
            if rest == "functions" || rest.hasPrefix("functions/") { return noFunctions(request, rest) }
        } catch let error as AdminError {
            return ConsoleController.error(error.status, error.message)
        } catch {
            return ConsoleController.error(.internalServerError, "Internal error")
        }
        return ConsoleController.error(.notFound, "No admin endpoint at \(path)")
    }

    /// The functions endpoints of a server that runs none: empty lists.
    private func noFunctions(_ request: Request, _ rest: Substring) -> Response {
        switch rest {
        case "functions", "functions/": return ConsoleController.json(.object([JSONMember("functions", .array([])), JSONMember("runs", .array([]))]))
        case "functions/deadLetters", "functions/deadLetters/": return ConsoleController.json(.object([JSONMember("deadLetters", .array([]))]))
        default: return ConsoleController.error(.notFound, "This server runs no functions.")
        }
    }
}

/// A refusal of an admin endpoint: its status and a message for people.
struct AdminError: Error {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> AdminError { AdminError(.badRequest, message) }
}

extension Substring {
    /// The rest after `prefix` when the substring starts with it and `prefix` ends there or at a `/`.
    fileprivate func afterSegment(_ prefix: String) -> Substring? {
        guard hasPrefix(prefix) else { return nil }
        let rest = dropFirst(prefix.count)
        return rest.isEmpty || rest.hasPrefix("/") ? rest : nil
    }
}
