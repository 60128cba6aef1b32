import HTTPTypes

/// An error that leaves the server as `{"error": message}` with a status (mapping happens only here).
struct RestError: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func badRequest(_ message: String) -> RestError { RestError(.badRequest, message) }
    static let permissionDenied = RestError(.unauthorized, "Permission denied")
}
