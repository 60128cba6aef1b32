/// An Identity Toolkit error: HTTP 400 (unless stated) with `error.message` = `CODE` or
/// `CODE : detail`, as Firebase clients expect (they split on the separator and match the code).
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var detail: String?
    public var status: Int

    public init(_ code: String, _ detail: String? = nil, status: Int = 400) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    /// The wire message.
    public var message: String { detail.map { "\(code) : \($0)" } ?? code }
    public var description: String { message }

    static let weakPassword = AuthError("WEAK_PASSWORD", "Password should be at least 6 characters")
    static let invalidIDToken = AuthError("INVALID_ID_TOKEN")
    static let userNotFound = AuthError("USER_NOT_FOUND")
}
