import Hummingbird

extension AdminController {
    /// `/.hearth/overview`: see docs/console.md.
    func overview(_ request: Request) async throws -> Response {
        throw AdminError(.notImplemented, "Not built yet")
    }
}
