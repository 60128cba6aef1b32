/// A storage request that cannot be served; mapped to each API's error shape at the edge.
struct StorageError: Error, Sendable {
    var status: Int
    var message: String
    var reason: String

    static func notFound(_ message: String = "Not Found") -> StorageError { StorageError(status: 404, message: message, reason: "notFound") }
    static func badRequest(_ message: String) -> StorageError { StorageError(status: 400, message: message, reason: "invalid") }
    static func conflict(_ message: String) -> StorageError { StorageError(status: 409, message: message, reason: "conflict") }
    static let preconditionFailed = StorageError(
        status: 412, message: "At least one of the pre-conditions you specified did not hold.", reason: "conditionNotMet")
    static func forbidden(_ message: String) -> StorageError { StorageError(status: 403, message: message, reason: "forbidden") }
    static let unauthorized = StorageError(status: 401, message: "Missing admin credentials.", reason: "required")
    static func tooLarge(_ limit: Int) -> StorageError {
        StorageError(status: 413, message: "The request body is over \(limit) bytes.", reason: "uploadTooLarge")
    }
    static func noSuchObject(_ bucket: String, _ name: String) -> StorageError { .notFound("No such object: \(bucket)/\(name)") }
    static let noSuchBucket = StorageError(status: 404, message: "The specified bucket does not exist.", reason: "notFound")
}
