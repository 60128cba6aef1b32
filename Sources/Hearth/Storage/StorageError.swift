import Foundation

/// Why a ``Storage`` call failed.
///
/// ```swift
/// do {
///     let data = try await storage.reference("users/\(uid)/avatar.jpg").data(maxSize: 1 << 20)
/// } catch let error as StorageError where error.code == .objectNotFound {
///     showPlaceholder()
/// }
/// ```
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// A stable reason. New codes may be added; switch with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case objectNotFound, unauthorized, unauthenticated, quotaExceeded, checksumMismatch, cancelled
            case downloadSizeExceeded, invalidArgument, retryLimitExceeded, network, invalidResponse, server, localFile
        }

        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }

        /// The code's name (`objectNotFound`), for logs; match on the static constants, not on this text.
        public var description: String { base.rawValue }

        /// 404: no object at this path.
        public static let objectNotFound = Code(.objectNotFound)
        /// 403: the storage rules refuse this caller.
        public static let unauthorized = Code(.unauthorized)
        /// 401, or no ID token could be had: the caller is not signed in (or the token is not accepted).
        public static let unauthenticated = Code(.unauthenticated)
        /// 402 / 413 / 429: over a quota or a size limit.
        public static let quotaExceeded = Code(.quotaExceeded)
        /// The bytes the server stored or sent differ from the bytes given or expected (MD5).
        public static let checksumMismatch = Code(.checksumMismatch)
        /// The task was cancelled (a resumable upload in progress is cancelled on the server too).
        public static let cancelled = Code(.cancelled)
        /// The object is larger than the `maxSize` the download allowed.
        public static let downloadSizeExceeded = Code(.downloadSizeExceeded)
        /// 400: the server refused the request as malformed (name, metadata, page token).
        public static let invalidArgument = Code(.invalidArgument)
        /// A resumable upload failed too many times in a row.
        public static let retryLimitExceeded = Code(.retryLimitExceeded)
        /// The server could not be reached (see ``StorageError/cause``).
        public static let network = Code(.network)
        /// The server's answer could not be read.
        public static let invalidResponse = Code(.invalidResponse)
        /// Any other server error (see ``StorageError/status`` and ``StorageError/serverMessage``).
        public static let server = Code(.server)
        /// A local file could not be read or written: a missing file or folder, no permission, a full
        /// disk (see ``StorageError/cause``).
        public static let localFile = Code(.localFile)
    }

    /// Why the call failed; compare with the constants of ``Code`` (Firebase's `StorageErrorCode`).
    public var code: Code
    /// A safe, human-readable explanation.
    public var message: String
    /// The HTTP status, if the server answered.
    public var status: Int?
    /// The server's error message, if it sent one.
    public var serverMessage: String?
    /// The underlying error (a `URLError`, an ``AuthError``).
    public var cause: (any Error)?

    /// Makes an error, for instance to stand in for ``Storage`` in a test double.
    public init(code: Code, message: String, status: Int? = nil, serverMessage: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverMessage = serverMessage
        self.cause = cause
    }

    /// `StorageError.<code>: <message>`, with the HTTP status when the server answered.
    public var description: String {
        var text = "StorageError.\(code): \(message)"
        if let status { text += " (HTTP \(status))" }
        return text
    }

    static let cancelled = StorageError(code: .cancelled, message: "The operation was cancelled.")

    static func network(_ error: any Error) -> StorageError {
        StorageError(code: .network, message: "The storage server could not be reached.", cause: error)
    }

    static func invalidResponse(status: Int) -> StorageError {
        StorageError(code: .invalidResponse, message: "The storage server's answer could not be read.", status: status)
    }

    static func localFile(_ message: String, cause: any Error) -> StorageError {
        StorageError(code: .localFile, message: message, cause: cause)
    }

    static func checksumMismatch(_ what: String) -> StorageError {
        StorageError(code: .checksumMismatch, message: "The MD5 of the \(what) does not match.")
    }

    /// Maps an HTTP error answer (`{"error":{"code":N,"message":"…"}}` or plain text).
    init(status: Int, body: Data) {
        struct Envelope: Decodable {
            struct Detail: Decodable { var message: String? }
            var error: Detail
        }
        let text = (try? JSONDecoder().decode(Envelope.self, from: body))?.error.message
            ?? String(data: body.prefix(500), encoding: .utf8).flatMap { $0.isEmpty ? nil : $0 }
        let (code, message): (Code, String) =
            switch status {
            case 401: (.unauthenticated, "The request needs a signed-in user (or the ID token was not accepted).")
            case 403: (.unauthorized, "The storage rules do not allow this.")
            case 404: (.objectNotFound, "There is no object at this path.")
            case 402, 413, 429: (.quotaExceeded, "The request is over a quota or size limit.")
            case 400 where text?.contains("MD5") == true || text?.contains("CRC32C") == true:
                (.checksumMismatch, "The server computed a different checksum for the uploaded bytes.")
            case 400: (.invalidArgument, "The server refused the request as invalid.")
            default: (.server, "The storage server failed the request (HTTP \(status)).")
            }
        self.init(code: code, message: message, status: status, serverMessage: text)
    }
}
