import Hummingbird

extension AdminController {
    /// `/.hearth/rules/…`: see docs/console.md.
    func rules(_ request: Request, _ rest: Substring) async throws -> Response {
        throw AdminError(.notImplemented, "Not built yet")
    }
}
