public import HearthCore
public import HearthWire

/// An Identity Toolkit refusal: Firebase's code and an optional detail. The auth controller answers it with HTTP
/// 400 and `error.message` = `CODE` or `CODE : detail`, as Firebase clients expect (they split on the separator and
/// match the code); the status is the edge's business, not the service's.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Firebase's error code (`EMAIL_EXISTS`, `INVALID_ID_TOKEN`), the part clients match on.
    public var code: String
    /// Text after the code (`Password should be at least 6 characters`); never a token, a password or a code.
    public var detail: String?
    /// An error with Firebase's `code` and an optional `detail`.
    public init(_ code: String, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The wire message.
    public var message: String { detail.map { "\(code) : \($0)" } ?? code }
    /// The wire message, as ``message``.
    public var description: String { message }

    static let weakPassword = AuthError("WEAK_PASSWORD", "Password should be at least 6 characters")
    static let invalidIDToken = AuthError("INVALID_ID_TOKEN")
    static let userNotFound = AuthError("USER_NOT_FOUND")
}

extension AuthError {
    /// `INVALID_ARGUMENT` for a request field of the wrong JSON type, worded as Google's front end words it
    /// (`Invalid value at 'email' (TYPE_STRING), 5`).
    public init(_ mismatch: JSONFieldMismatch) { self.init("INVALID_ARGUMENT", mismatch.message) }

    /// A request body read as `type` under protobuf's JSON mapping (``JSONValueDecoder``); a mistyped field throws
    /// `INVALID_ARGUMENT`.
    public static func decode<T: Decodable>(_ type: T.Type = T.self, from body: JSONValue) throws -> T {
        do {
            return try JSONValueDecoder().decode(type, from: body)
        } catch let mismatch as JSONFieldMismatch {
            throw AuthError(mismatch)
        }
    }
}
