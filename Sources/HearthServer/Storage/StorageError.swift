/// A storage request that cannot be served, as a domain outcome: a code and a message. Each API words it at
/// its edge (Firebase v0 and Cloud Storage JSON error bodies, XML for public URLs), with the HTTP status the
/// code stands for (``status``).
struct StorageError: Error, Sendable, Equatable {
    /// What went wrong; the raw value is the `reason` Cloud Storage's error bodies carry.
    enum Code: String, Sendable, Equatable {
        /// The request is malformed or asks for something impossible.
        case invalid
        /// An admin-only API called without the admin credential.
        case required
        /// A credential that is not accepted, or the wrong one for a resumable upload.
        case authError
        /// The caller may not do this (rules, or another user's upload).
        case forbidden
        /// No such object, bucket or upload.
        case notFound
        /// Conflicts with the state of the object or upload (a busy or finished session).
        case conflict
        /// An `ifGenerationMatch`-style precondition did not hold.
        case conditionNotMet
        /// A `Range` outside the object.
        case requestedRangeNotSatisfiable
        /// The body is over the largest accepted size.
        case uploadTooLarge
        /// Something failed on the server's side.
        case backendError
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Cloud Storage's `reason` for the code.
    var reason: String { code.rawValue }

    static func notFound(_ message: String = "Not Found") -> StorageError { StorageError(.notFound, message) }
    static func badRequest(_ message: String) -> StorageError { StorageError(.invalid, message) }
    static func conflict(_ message: String) -> StorageError { StorageError(.conflict, message) }
    static let preconditionFailed = StorageError(.conditionNotMet, "At least one of the pre-conditions you specified did not hold.")
    static func forbidden(_ message: String) -> StorageError { StorageError(.forbidden, message) }
    static let unauthorized = StorageError(.required, "Missing admin credentials.")
    static func tooLarge(_ limit: Int) -> StorageError { StorageError(.uploadTooLarge, "The request body is over \(limit) bytes.") }
    static func noSuchObject(_ bucket: String, _ name: String) -> StorageError { .notFound("No such object: \(bucket)/\(name)") }
    static let noSuchBucket = StorageError(.notFound, "The specified bucket does not exist.")
    static let internalError = StorageError(.backendError, "Internal error")
}

extension StorageError {
    /// The HTTP status every storage API answers the code with.
    var status: Int {
        switch code {
        case .invalid: 400
        case .required, .authError: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .conditionNotMet: 412
        case .uploadTooLarge: 413
        case .requestedRangeNotSatisfiable: 416
        case .backendError: 500
        }
    }

    /// An error kept with a resumable session, as it was stored (older sessions kept the status beside it).
    init(stored failure: UploadSession.Failure) {
        self.init(Code(rawValue: failure.reason) ?? .backendError, failure.message)
    }
}
