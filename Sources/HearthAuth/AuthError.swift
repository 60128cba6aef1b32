/// An Identity Toolkit error: HTTP 400 (unless stated) with `error.message` = `CODE` or
/// `CODE : detail`, as Firebase clients expect (they split on the separator and match the code).
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Firebase's error code (`EMAIL_EXISTS`, `INVALID_ID_TOKEN`), the part clients match on.
    public var code: String
    /// Text after the code (`Password should be at least 6 characters`); never a token, a password or a code.
    public var detail: String?
    /// The HTTP status the controller answers with (400 unless stated). Issue 31 §4 moves this mapping to the edge.
    public var status: Int

    /// An error with Firebase's `code`, an optional `detail`, and the status to answer with.
    public init(_ code: String, _ detail: String? = nil, status: Int = 400) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    /// The wire message.
    public var message: String { detail.map { "\(code) : \($0)" } ?? code }
    /// The wire message, as ``message``.
    public var description: String { message }

    static let weakPassword = AuthError("WEAK_PASSWORD", "Password should be at least 6 characters")
    static let invalidIDToken = AuthError("INVALID_ID_TOKEN")
    static let userNotFound = AuthError("USER_NOT_FOUND")
}
