/// A storage request that cannot be served, as a domain outcome: a code and a message. Each API words it at
/// its edge (Firebase v0 and Cloud Storage JSON error bodies, XML for public URLs), with the HTTP status the
/// code stands for (``status``).
package struct StorageError: Error, Sendable, Equatable {
    /// What went wrong; the raw value is the `reason` Cloud Storage's error bodies carry.
    package enum Code: String, Sendable, Equatable {
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
        /// The server's disk is full: nothing was saved; the request may be retried once space is freed.
        case insufficientStorage
        /// Something failed on the server's side.
        case backendError
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Cloud Storage's `reason` for the code.
    package var reason: String { code.rawValue }

    package static func notFound(_ message: String = "Not Found") -> StorageError { StorageError(.notFound, message) }
    package static func badRequest(_ message: String) -> StorageError { StorageError(.invalid, message) }
    package static func conflict(_ message: String) -> StorageError { StorageError(.conflict, message) }
    package static let preconditionFailed = StorageError(.conditionNotMet, "At least one of the pre-conditions you specified did not hold.")
    package static func forbidden(_ message: String) -> StorageError { StorageError(.forbidden, message) }
    package static let unauthorized = StorageError(.required, "Missing admin credentials.")
    package static func tooLarge(_ limit: Int) -> StorageError { StorageError(.uploadTooLarge, "The request body is over \(limit) bytes.") }
    package static func noSuchObject(_ bucket: String, _ name: String) -> StorageError { .notFound("No such object: \(bucket)/\(name)") }
    package static let noSuchBucket = StorageError(.notFound, "The specified bucket does not exist.")
    package static let internalError = StorageError(.backendError, "Internal error")
    /// The disk (or its quota) is full: nothing was saved.
    package static let diskFull = StorageError(
        .insufficientStorage, "The server's disk is full: the object was not saved. Try again once space is freed.")

    /// An error kept with a resumable session, as it was stored.
    package init(stored failure: UploadSession.Failure) {
        self.init(Code(rawValue: failure.reason) ?? .backendError, failure.message)
    }
}
