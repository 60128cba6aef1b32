import Hummingbird

extension AdminController {
    /// `/.hearth/links…`: see docs/console.md.
    func links(_ request: Request, _ rest: Substring) async throws -> Response {
        throw AdminError(.notImplemented, "Not built yet")
    }
}
